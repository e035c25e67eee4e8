// Values the console's build (scripts/build-console.mjs) puts into the bundle.

/** Operation → the members of its request, from the SageMaker service model (Create*Job only). */
declare const __CREATE_MEMBERS__: Readonly<Record<string, readonly string[]>>;
