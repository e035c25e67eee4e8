"""What user inference code imports from SageMaker's XGBoost container (encoder), for scripts written
against its image. A real sagemaker_xgboost_container installed for the interpreter comes first."""
