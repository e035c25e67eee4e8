"""What user inference code imports from SageMaker's inference toolkit (sagemaker-inference), for
code written against the framework images: content_types, decoder, encoder, errors. Slipway's own
codecs underneath. A real sagemaker_inference installed for the interpreter comes first on sys.path."""
