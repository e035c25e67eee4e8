"""Lineage tracking through boto3, a second real AWS client: entities, associations, QueryLineage,
experiments, paginators and errors.

Usage: python3 boto3_lineage.py ENDPOINT_URL ACCOUNT_ID
Exits non-zero (with an assertion message) on the first difference from SageMaker's behaviour.
"""
import sys
from datetime import datetime, timedelta, timezone

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

endpoint, account = sys.argv[1], sys.argv[2]
region = "us-west-2"
sm = boto3.client(
    "sagemaker",
    endpoint_url=endpoint,
    region_name=region,
    aws_access_key_id="AKIDBOTO3",
    aws_secret_access_key="secret",
    # The lineage export notebook's client settings.
    config=Config(retries={"max_attempts": 20, "mode": "adaptive"}),
)


def arn(kind, name):
    return f"arn:aws:sagemaker:{region}:{account}:{kind}/{name}"


def expect_error(code, fragment, fn, **kwargs):
    try:
        fn(**kwargs)
    except ClientError as e:
        err = e.response["Error"]
        assert err["Code"] == code, err
        assert fragment in err["Message"], err
        assert e.response["ResponseMetadata"]["HTTPStatusCode"] == 400
        return e
    raise AssertionError(f"expected {code}")


# Entities of the three lineage kinds.
data = sm.create_artifact(
    ArtifactName="boto3-data",
    Source={"SourceUri": "s3://boto3/abalone.csv", "SourceTypes": [{"SourceIdType": "S3ETag", "Value": "e1"}]},
    ArtifactType="DataSet",
    Properties={"rows": "4177"},
    Tags=[{"Key": "client", "Value": "boto3"}],
)["ArtifactArn"]
model = sm.create_artifact(Source={"SourceUri": "s3://boto3/model.tar.gz"}, ArtifactType="Model")["ArtifactArn"]
image = sm.create_artifact(Source={"SourceUri": "boto3.dkr.ecr/xgb:1"}, ArtifactType="Image")["ArtifactArn"]
d = sm.describe_artifact(ArtifactArn=data)
assert d["ArtifactName"] == "boto3-data" and d["ArtifactType"] == "DataSet", d
assert d["Source"]["SourceTypes"] == [{"SourceIdType": "S3ETag", "Value": "e1"}], d
assert isinstance(d["CreationTime"], datetime), d
expect_error(
    "ValidationException",
    f"Artifact '{model}' already exists.",
    sm.create_artifact,
    Source={"SourceUri": "s3://boto3/model.tar.gz"},
    ArtifactType="Model",
)

train = sm.create_action(ActionName="boto3-train", Source={"SourceUri": "job"}, ActionType="TrainingJob", Status="Completed")[
    "ActionArn"
]
deploy = sm.create_action(ActionName="boto3-deploy", Source={"SourceUri": "ep"}, ActionType="ModelDeployment")["ActionArn"]
assert deploy == arn("action", "boto3-deploy"), deploy
endpoint_ctx = sm.create_context(ContextName="boto3-endpoint", Source={"SourceUri": "ep", "SourceType": "ARN"}, ContextType="Endpoint")[
    "ContextArn"
]
sm.update_action(ActionName="boto3-deploy", Status="InProgress", Properties={"k": "v"})
assert sm.describe_action(ActionName="boto3-deploy")["Properties"] == {"k": "v"}
sm.update_context(ContextName="boto3-endpoint", Description="serves abalone")
sm.update_artifact(ArtifactArn=data, ArtifactName="boto3-data-v2", Properties={"rows": "4178"}, PropertiesToRemove=[])
ua = sm.describe_artifact(ArtifactArn=data)
assert ua["ArtifactName"] == "boto3-data-v2" and ua["Properties"]["rows"] == "4178", ua
assert sm.describe_context(ContextName=endpoint_ctx)["Description"] == "serves abalone"

# Associations: every type SageMaker writes in this chain; both ends must exist; no duplicates.
for s, dst, t in [
    (data, train, "ContributedTo"),
    (image, train, "ContributedTo"),
    (train, model, "Produced"),
    (model, deploy, "ContributedTo"),
    (image, deploy, "ContributedTo"),
    (deploy, endpoint_ctx, "AssociatedWith"),
]:
    r = sm.add_association(SourceArn=s, DestinationArn=dst, AssociationType=t)
    assert (r["SourceArn"], r["DestinationArn"]) == (s, dst), r
expect_error("ValidationException", "already exists", sm.add_association, SourceArn=model, DestinationArn=deploy)
e = expect_error(
    "ResourceNotFound",
    "does not exist",
    sm.add_association,
    SourceArn=arn("artifact", "0" * 32),
    DestinationArn=deploy,
)
assert isinstance(e, sm.exceptions.ResourceNotFound), type(e)

incoming = sm.list_associations(DestinationArn=deploy)["AssociationSummaries"]
assert sorted(a["SourceType"] for a in incoming) == ["Image", "Model"], incoming
assert all(a["DestinationName"] == "boto3-deploy" and a["DestinationType"] == "ModelDeployment" for a in incoming), incoming
pages = list(sm.get_paginator("list_associations").paginate(SortBy="SourceArn", SortOrder="Ascending", PaginationConfig={"PageSize": 4}))
summaries = [a for p in pages for a in p["AssociationSummaries"]]
assert len(pages) == 2 and len(summaries) == 6, pages
assert [a["SourceArn"] for a in summaries] == sorted(a["SourceArn"] for a in summaries)
assert sm.list_associations(AssociationType="Produced")["AssociationSummaries"][0]["SourceName"] == "boto3-train"

# QueryLineage from the endpoint, upstream, as the lineage notebooks ask it.
q = sm.query_lineage(
    StartArns=[endpoint_ctx],
    Direction="Ascendants",
    IncludeEdges=False,
    Filters={"LineageTypes": ["Artifact"], "Types": ["Model", "Image"]},
    MaxDepth=10,
)
assert sorted(v["Arn"] for v in q["Vertices"]) == sorted([model, image]), q
q = sm.query_lineage(StartArns=[model], Direction="Both", IncludeEdges=True, MaxResults=2)
vertices, edges, pages = list(q["Vertices"]), list(q["Edges"]), 1
while q.get("NextToken"):
    q = sm.query_lineage(StartArns=[model], Direction="Both", IncludeEdges=True, MaxResults=2, NextToken=q["NextToken"])
    vertices += q["Vertices"]
    edges += q["Edges"]
    pages += 1
assert pages == 3 and len(vertices) == 6, (pages, vertices)
assert {(x["SourceArn"], x["DestinationArn"], x["AssociationType"]) for x in edges} == {
    (data, train, "ContributedTo"),
    (image, train, "ContributedTo"),
    (train, model, "Produced"),
    (model, deploy, "ContributedTo"),
    (deploy, endpoint_ctx, "AssociatedWith"),
}, edges
expect_error("ResourceNotFound", "does not exist", sm.query_lineage, StartArns=[arn("context", "nope")])

# Lists with their filters and paginators.
assert [a["ArtifactArn"] for a in sm.list_artifacts(SourceUri="s3://boto3/abalone.csv")["ArtifactSummaries"]] == [data]
later = datetime.now(timezone.utc) + timedelta(minutes=5)
assert sm.list_artifacts(CreatedAfter=later)["ArtifactSummaries"] == []
names = [
    a["ActionName"]
    for p in sm.get_paginator("list_actions").paginate(SortBy="Name", SortOrder="Ascending", PaginationConfig={"PageSize": 1})
    for a in p["ActionSummaries"]
]
assert names == ["boto3-deploy", "boto3-train"], names
assert [c["ContextName"] for c in sm.list_contexts(ContextType="Endpoint")["ContextSummaries"]] == ["boto3-endpoint"]

# Experiments, trials and trial components.
sm.create_experiment(ExperimentName="boto3-exp", Description="d")
sm.create_trial(TrialName="boto3-trial", ExperimentName="boto3-exp")
tc = sm.create_trial_component(
    TrialComponentName="boto3-tc",
    Status={"PrimaryStatus": "InProgress"},
    Parameters={"eta": {"NumberValue": 0.2}, "objective": {"StringValue": "reg:linear"}},
)["TrialComponentArn"]
sm.associate_trial_component(TrialComponentName="boto3-tc", TrialName="boto3-trial")
sm.update_experiment(ExperimentName="boto3-exp", DisplayName="boto3-experiment-display", Description="updated")
e = sm.describe_experiment(ExperimentName="boto3-exp")
assert e["DisplayName"] == "boto3-experiment-display" and e["Description"] == "updated", e
sm.update_trial(TrialName="boto3-trial", DisplayName="boto3-trial-display")
t = sm.describe_trial(TrialName="boto3-trial")
assert t["DisplayName"] == "boto3-trial-display" and t["ExperimentName"] == "boto3-exp", t
for i in range(3):
    sm.create_experiment(ExperimentName=f"boto3-exp-page-{i}")
pages = list(sm.get_paginator("list_experiments").paginate(PaginationConfig={"PageSize": 2}))
names = [x["ExperimentName"] for p in pages for x in p["ExperimentSummaries"]]
assert {"boto3-exp", "boto3-exp-page-0", "boto3-exp-page-1", "boto3-exp-page-2"} <= set(names), names
assert len(names) == len(set(names)) and len(pages) >= 2, names
for i in range(3):
    sm.delete_experiment(ExperimentName=f"boto3-exp-page-{i}")
sm.update_trial_component(TrialComponentName="boto3-tc", Status={"PrimaryStatus": "Completed"}, ParametersToRemove=["eta"])
described = sm.describe_trial_component(TrialComponentName="boto3-tc")
assert described["Parameters"] == {"objective": {"StringValue": "reg:linear"}}, described
assert described["Status"]["PrimaryStatus"] == "Completed"
listed = sm.list_trial_components(ExperimentName="boto3-exp")["TrialComponentSummaries"]
assert [t["TrialComponentArn"] for t in listed] == [tc], listed
assert [t["TrialName"] for t in sm.list_trials(TrialComponentName="boto3-tc")["TrialSummaries"]] == ["boto3-trial"]
expect_error("ValidationException", "disassociate", sm.delete_trial, TrialName="boto3-trial")
sm.disassociate_trial_component(TrialComponentName="boto3-tc", TrialName="boto3-trial")
sm.delete_trial_component(TrialComponentName="boto3-tc")
sm.delete_trial(TrialName="boto3-trial")
sm.delete_experiment(ExperimentName="boto3-exp")
expect_error("ResourceNotFound", f"Experiment '{arn('experiment', 'boto3-exp')}' does not exist.", sm.describe_experiment, ExperimentName="boto3-exp")

# Deletes.
sm.delete_association(SourceArn=image, DestinationArn=deploy)
expect_error("ResourceNotFound", "does not exist", sm.delete_association, SourceArn=image, DestinationArn=deploy)
sm.delete_action(ActionName="boto3-deploy")
assert sm.list_associations(DestinationArn=endpoint_ctx)["AssociationSummaries"] == []
sm.delete_context(ContextName="boto3-endpoint")
sm.delete_artifact(ArtifactArn=data)
expect_error("ResourceNotFound", f"Artifact '{data}' does not exist.", sm.describe_artifact, ArtifactArn=data)
print("boto3 lineage workflow: ok")
