"""Search as the SageMaker Python SDK's ExperimentAnalytics calls it and reads its answer, through
boto3 (Debian's python3-boto3): trial components of an experiment by Parents.ExperimentName, sorted,
paged by NextToken, reshaped into the columns ExperimentAnalytics builds.

Usage: python3 boto3_search.py ENDPOINT_URL ACCOUNT_ID
Exits non-zero (with an assertion message) on the first difference from SageMaker's behaviour.
"""
import sys

import boto3
from botocore.exceptions import ClientError

endpoint, account = sys.argv[1], sys.argv[2]
sm = boto3.client(
    "sagemaker",
    endpoint_url=endpoint,
    region_name="us-west-2",
    aws_access_key_id="AKIDBOTO3",
    aws_secret_access_key="secret",
)

sm.create_experiment(ExperimentName="analytics")
for t in range(2):
    sm.create_trial(TrialName=f"analytics-trial-{t}", ExperimentName="analytics")
for i in range(7):
    name = f"analytics-tc-{i}"
    sm.create_trial_component(TrialComponentName=name, DisplayName="Training")
    sm.update_trial_component(
        TrialComponentName=name,
        Parameters={"learning_rate": {"NumberValue": 0.1 * (7 - i)}, "optimizer": {"StringValue": "adam"}},
        InputArtifacts={"train": {"Value": f"s3://bucket/train/{i}.csv", "MediaType": "text/csv"}},
    )
    sm.associate_trial_component(TrialComponentName=name, TrialName=f"analytics-trial-{i % 2}")
# A component outside the experiment must not appear.
sm.create_trial_component(TrialComponentName="stray")


def trial_components(search_expression=None, sort_by=None, sort_order=None, max_results=None):
    """ExperimentAnalytics._get_trial_components and ._search: page until no NextToken or an empty page."""
    args = {
        "Resource": "ExperimentTrialComponent",
        "SearchExpression": search_expression
        or {"Filters": [{"Name": "Parents.ExperimentName", "Operator": "Equals", "Value": "analytics"}]},
    }
    if sort_by:
        args["SortBy"] = sort_by
    if sort_order:
        args["SortOrder"] = sort_order
    if max_results:
        args["MaxResults"] = max_results
    out, pages = [], 0
    while True:
        response = sm.search(**args)
        pages += 1
        components = [result["TrialComponent"] for result in response["Results"]]
        out.extend(components)
        if "NextToken" in response and len(components) > 0:
            args["NextToken"] = response["NextToken"]
        else:
            break
    return out, pages


def reshape(tc):
    """The columns ExperimentAnalytics' dataframe has for one trial component."""
    row = {"TrialComponentName": tc["TrialComponentName"], "DisplayName": tc.get("DisplayName")}
    for name, value in sorted(tc.get("Parameters", {}).items()):
        row[name] = value.get("NumberValue", value.get("StringValue"))
    for metric in tc.get("Metrics", []):
        for stat in ["Min", "Max", "Avg", "StdDev", "Last", "Count"]:
            row[f"{metric['MetricName']} - {stat}"] = metric.get(stat)
    for name, artifact in tc.get("InputArtifacts", {}).items():
        row[f"{name} - MediaType"] = artifact.get("MediaType")
        row[f"{name} - Value"] = artifact.get("Value")
    row["Trials"] = [p["TrialName"] for p in tc.get("Parents", [])]
    row["Experiments"] = [p["ExperimentName"] for p in tc.get("Parents", [])]
    return row


rows, pages = trial_components(sort_by="CreationTime", sort_order="Ascending", max_results=3)
assert pages == 3, pages
assert [r["TrialComponentName"] for r in map(reshape, rows)] == [f"analytics-tc-{i}" for i in range(7)], rows
first = reshape(rows[0])
assert first["DisplayName"] == "Training", first
assert abs(first["learning_rate"] - 0.7) < 1e-9 and first["optimizer"] == "adam", first
assert first["train - Value"] == "s3://bucket/train/0.csv" and first["train - MediaType"] == "text/csv", first
assert first["Trials"] == ["analytics-trial-0"] and first["Experiments"] == ["analytics"], first
assert hasattr(rows[0]["CreationTime"], "year"), rows[0]

# Sorted by a numeric parameter: the smallest learning rate first.
rows, _ = trial_components(sort_by="Parameters.learning_rate", sort_order="Ascending")
assert [r["TrialComponentName"] for r in rows] == [f"analytics-tc-{i}" for i in range(6, -1, -1)], rows

# One trial's components, as a search_expression argument would ask.
rows, _ = trial_components(
    search_expression={"Filters": [{"Name": "Parents.TrialName", "Operator": "Equals", "Value": "analytics-trial-1"}]},
    sort_by="TrialComponentName",
    sort_order="Descending",
)
assert [r["TrialComponentName"] for r in rows] == ["analytics-tc-5", "analytics-tc-3", "analytics-tc-1"], rows

try:
    sm.search(Resource="ExperimentTrialComponent", SortBy="Parameters")
    raise AssertionError("expected ValidationException")
except ClientError as e:
    assert e.response["Error"]["Code"] == "ValidationException", e.response

print("boto3 search workflow: ok")
