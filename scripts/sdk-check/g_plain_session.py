"""Code as a user writes it: no clients handed in, only AWS_ENDPOINT_URL + dummy keys in the environment.

Run: SAGEMAKER_USER_CONFIG_OVERRIDE=/work/sdk/config-plain.yaml AWS_ENDPOINT_URL=http://127.0.0.1:4870 \
     AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_DEFAULT_REGION=us-east-1 ./run.sh scripts/g_plain_session.py
"""
import os

import numpy as np
import sagemaker
from sagemaker.serializers import CSVSerializer
from sagemaker.deserializers import CSVDeserializer
from sagemaker.sklearn import SKLearn

here = os.path.dirname(os.path.abspath(__file__))
sess = sagemaker.Session()  # the default bucket comes from the SDK defaults config (config-plain.yaml): no STS call
rng = np.random.default_rng(1)
X = rng.random((200, 7))
y = 3 + 10 * X[:, 0] + rng.normal(0, 0.1, 200)
os.makedirs("/tmp/sdk-work/plain/train", exist_ok=True)
np.savetxt("/tmp/sdk-work/plain/train/d.csv", np.column_stack([y, X]), delimiter=",", fmt="%.5f")
train = sess.upload_data("/tmp/sdk-work/plain/train", key_prefix="plain/train")

est = SKLearn(entry_point="train.py", source_dir=os.path.join(here, "sklearn"), framework_version="1.2-1",
              instance_type="ml.m5.large", role="arn:aws:iam::000000000000:role/SageMakerRole",
              hyperparameters={"n-estimators": 10})
est.fit({"train": train})
p = est.deploy(initial_instance_count=1, instance_type="ml.m5.large", entry_point="inference.py",
               source_dir=os.path.join(here, "sklearn"), serializer=CSVSerializer(), deserializer=CSVDeserializer())
print("prediction", p.predict(X[:2]), "truth", y[:2])
p.delete_model()
p.delete_endpoint()
print("G DONE ok")
