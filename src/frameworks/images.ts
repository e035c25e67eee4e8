// SageMaker's framework images: which image URIs are the scikit-learn, PyTorch, TensorFlow,
// HuggingFace, MXNet and XGBoost containers the SageMaker Python SDK picks (`image_uris.retrieve`),
// in any account, region and partition, training and inference repositories alike.
// https://github.com/aws/deep-learning-containers/blob/master/available_images.md
// https://docs.aws.amazon.com/sagemaker/latest/dg-ecr-paths/sagemaker-algo-docker-registry-paths.html

export type Framework = 'sklearn' | 'pytorch' | 'tensorflow' | 'huggingface' | 'mxnet' | 'xgboost';

export interface FrameworkImage {
  readonly framework: Framework;
  /** The framework version the image carries: `1.2-1` (scikit-learn, XGBoost), `2.0.1` (PyTorch ...). */
  readonly version: string;
  /** The image's tag, whole. */
  readonly tag: string;
  /** The repository's purpose: `-training` / `-inference` repositories, or `both` (scikit-learn, XGBoost). */
  readonly role: 'training' | 'inference' | 'both';
  readonly repository: string;
}

/** The Python module each framework's code imports, and the distribution that carries it. */
export const FRAMEWORK_MODULES: Readonly<Record<Framework, { module: string; dist: string; name: string }>> = {
  sklearn: { module: 'sklearn', dist: 'scikit-learn', name: 'scikit-learn' },
  pytorch: { module: 'torch', dist: 'torch', name: 'PyTorch' },
  tensorflow: { module: 'tensorflow', dist: 'tensorflow', name: 'TensorFlow' },
  huggingface: { module: 'transformers', dist: 'transformers', name: 'HuggingFace Transformers' },
  mxnet: { module: 'mxnet', dist: 'mxnet', name: 'MXNet' },
  xgboost: { module: 'xgboost', dist: 'xgboost', name: 'XGBoost' },
};

// <account>.dkr.ecr.<region>.amazonaws.com[.cn]/<repository>:<tag>
const IMAGE = /^\d{12}\.dkr\.ecr\.[a-z0-9-]+\.amazonaws\.com(?:\.cn)?\/([a-z0-9._/-]+):([A-Za-z0-9._-]+)$/;

const REPOSITORIES: ReadonlyArray<readonly [RegExp, Framework, FrameworkImage['role']]> = [
  [/^sagemaker-scikit-learn$/, 'sklearn', 'both'],
  [/^sagemaker-xgboost$/, 'xgboost', 'both'],
  [/^(?:aws\/)?pytorch-(training|inference)(?:-graviton|-neuronx?)?$/, 'pytorch', 'training'],
  [/^sagemaker-pytorch$/, 'pytorch', 'both'],
  [/^(?:aws\/)?tensorflow-(training|inference)(?:-graviton|-neuronx?)?$/, 'tensorflow', 'training'],
  [/^sagemaker-tensorflow(?:-scriptmode|-serving)?$/, 'tensorflow', 'both'],
  [/^huggingface-(?:pytorch|tensorflow)-(training|inference)(?:-neuronx?)?$/, 'huggingface', 'training'],
  [/^mxnet-(training|inference)$/, 'mxnet', 'training'],
  [/^sagemaker-mxnet(?:-serving)?$/, 'mxnet', 'both'],
];

/**
 * The framework image an image URI names, or undefined for any other image. The version is the
 * tag's leading framework version: `1.2-1-cpu-py3` → `1.2-1`, `2.0.1-cpu-py310-ubuntu20.04-sagemaker`
 * → `2.0.1`, a HuggingFace `2.0.0-transformers4.28.1-cpu-...` → `4.28.1` (the transformers version).
 */
export function parseFrameworkImage(uri: string): FrameworkImage | undefined {
  const m = IMAGE.exec(uri.trim());
  if (!m) return undefined;
  const repository = m[1]!;
  const tag = m[2]!;
  for (const [re, framework, role] of REPOSITORIES) {
    const r = re.exec(repository);
    if (!r) continue;
    const purpose: FrameworkImage['role'] = role === 'both' ? 'both' : (r[1] as 'training' | 'inference');
    let version = /^(\d+(?:\.\d+)*(?:-\d+)?)/.exec(tag)?.[1] ?? tag;
    if (framework === 'huggingface') version = /transformers(\d+(?:\.\d+)*)/.exec(tag)?.[1] ?? version;
    else if (framework !== 'sklearn' && framework !== 'xgboost') version = version.replace(/-\d+$/, '');
    return { framework, version, tag, role: purpose, repository };
  }
  return undefined;
}

/**
 * Whether the framework's local version answers the image's: `1.2-1` (scikit-learn's image) asks
 * for 1.2.x, `2.0.1` for 2.0.x (a patch level apart is the same API). Undefined when unknown.
 */
export function versionsAgree(imageVersion: string, local: string | undefined): boolean | undefined {
  if (!local) return undefined;
  const want = imageVersion.replace(/-\d+$/, '').split('.');
  const have = local.split(/[.+]/);
  const n = Math.min(2, want.length);
  for (let i = 0; i < n; i++) if (want[i] !== have[i]) return false;
  return true;
}
