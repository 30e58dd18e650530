"""deploy/: the Kubernetes manifests against the Kubernetes 1.33 JSON Schemas (strict: an unknown or
misspelt field is an error; schemas/ and vendor_schemas.py say where they come from), what the
desktops need of them (probes on handrail's endpoints, the token from a Secret, non-root on a
read-only root, a NetworkPolicy that admits only the driver), and the Containerfile's packages and
user. The RayCluster is a custom resource: its pod templates are checked as pod templates."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import jsonschema
import pytest
import yaml
from referencing import Registry, Resource

DEPLOY = Path(__file__).resolve().parents[1]
SCHEMAS = Path(__file__).resolve().parent / "schemas"
SCHEMA_OF = {
    ("v1", "Namespace"): "namespace-v1",
    ("v1", "Service"): "service-v1",
    ("apps/v1", "StatefulSet"): "statefulset-apps-v1",
    ("networking.k8s.io/v1", "NetworkPolicy"): "networkpolicy-networking-v1",
    ("batch/v1", "Job"): "job-batch-v1",
}
RAYCLUSTER_FIELDS = {"rayVersion", "enableInTreeAutoscaling", "headGroupSpec", "workerGroupSpecs"}
PORT = 8765


def load(name: str) -> dict:
    return json.loads((SCHEMAS / f"{name}.json").read_text())


REGISTRY = Registry().with_resources(
    (schema["$id"], Resource.from_contents(schema))
    for schema in [load("_definitions")] + [load(n) for n in set(SCHEMA_OF.values()) | {"podtemplatespec-v1"}])


def errors(document: dict, schema_name: str) -> list[str]:
    validator = jsonschema.Draft202012Validator(load(schema_name), registry=REGISTRY)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(document)]


def documents() -> list[tuple[str, dict]]:
    out = []
    for path in sorted((DEPLOY / "k8s").glob("*.yaml")):
        out += [(path.name, d) for d in yaml.safe_load_all(path.read_text()) if d is not None]
    return out


def of_kind(kind: str) -> list[dict]:
    return [d for _, d in documents() if d["kind"] == kind]


def pod_templates() -> list[dict]:
    templates = [d["spec"]["template"] for d in of_kind("StatefulSet") + of_kind("Job")]
    for cluster in of_kind("RayCluster"):
        templates.append(cluster["spec"]["headGroupSpec"]["template"])
        templates += [g["template"] for g in cluster["spec"]["workerGroupSpecs"]]
    return templates


def test_every_manifest_matches_its_kubernetes_schema():
    seen = set()
    for name, doc in documents():
        seen.add(doc["kind"])
        if doc["kind"] == "RayCluster":
            assert doc["apiVersion"] == "ray.io/v1", name
            assert set(doc["spec"]) <= RAYCLUSTER_FIELDS, f"{name}: unknown RayCluster fields"
            for template in pod_templates():
                assert errors(template, "podtemplatespec-v1") == [], name
            continue
        schema = SCHEMA_OF.get((doc["apiVersion"], doc["kind"]))
        assert schema, f"{name}: no schema for {doc['apiVersion']} {doc['kind']}"
        assert errors(doc, schema) == [], name
    assert seen >= {"StatefulSet", "Service", "NetworkPolicy", "Job", "RayCluster"}, seen


def test_the_schemas_refuse_a_misspelt_field_and_a_wrong_type():
    desktops = of_kind("StatefulSet")[0]
    misspelt = json.loads(json.dumps(desktops))
    misspelt["spec"]["template"]["spec"]["containers"][0]["readinesProbe"] = {}
    assert any("readinesProbe" in e for e in errors(misspelt, "statefulset-apps-v1"))
    wrong = json.loads(json.dumps(desktops))
    wrong["spec"]["replicas"] = "eight"
    assert errors(wrong, "statefulset-apps-v1")


def test_desktop_pods_are_ready_after_a_first_observation_and_hold_a_token_from_a_secret():
    for desktops in of_kind("StatefulSet"):
        spec = desktops["spec"]["template"]["spec"]
        container = spec["containers"][0]
        assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
        assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
        token = next(e for e in container["env"] if e["name"] == "HANDRAIL_TOKEN")
        assert token["valueFrom"]["secretKeyRef"]["key"] == "token"
        assert container["ports"][0]["containerPort"] == PORT
        assert f"0.0.0.0:{PORT}" in container["args"]
        requests = container["resources"]["requests"]
        assert requests["cpu"] and requests["memory"]


def test_every_pod_runs_as_a_non_root_user_without_privileges():
    for template in pod_templates():
        spec = template["spec"]
        assert spec["securityContext"]["runAsNonRoot"] is True
        assert spec["securityContext"]["runAsUser"] != 0
        for container in spec["containers"]:
            context = container["securityContext"]
            assert context["allowPrivilegeEscalation"] is False
            assert context["capabilities"]["drop"] == ["ALL"]
    for template in [d["spec"]["template"] for d in of_kind("StatefulSet") + of_kind("Job")]:
        for container in template["spec"]["containers"]:
            assert container["securityContext"]["readOnlyRootFilesystem"] is True
            mounts = {m["mountPath"] for m in container["volumeMounts"]}
            assert {"/tmp", "/home/desktop"} <= mounts, "the desktop writes there"


def test_only_the_driver_reaches_a_desktop():
    (policy,) = of_kind("NetworkPolicy")
    desktop_labels = of_kind("StatefulSet")[0]["spec"]["template"]["metadata"]["labels"]
    selected = policy["spec"]["podSelector"]["matchLabels"]
    assert selected.items() <= desktop_labels.items(), "the policy selects the desktop pods"
    assert "Ingress" in policy["spec"]["policyTypes"]
    (rule,) = policy["spec"]["ingress"]
    (peer,) = rule["from"]
    assert set(peer) == {"podSelector"}, "no namespace-wide or IP-wide admission"
    driver = peer["podSelector"]["matchLabels"]
    assert rule["ports"] == [{"protocol": "TCP", "port": PORT}]
    assert not driver.items() <= desktop_labels.items(), "desktops do not admit each other"
    for cluster in of_kind("RayCluster"):
        labels = [cluster["spec"]["headGroupSpec"]["template"]["metadata"]["labels"]]
        labels += [g["template"]["metadata"]["labels"] for g in cluster["spec"]["workerGroupSpecs"]]
        assert all(driver.items() <= lab.items() for lab in labels), "Ray's pods are drivers"


def test_the_sweep_job_splits_the_tasks_into_as_many_shards_as_completions():
    (job,) = of_kind("Job")
    assert job["spec"]["completionMode"] == "Indexed"
    command = " ".join(job["spec"]["template"]["spec"]["containers"][0]["args"])
    shards = re.search(r'--shard "\$\{JOB_COMPLETION_INDEX\}/(\d+)"', command)
    assert shards and int(shards.group(1)) == job["spec"]["completions"], command


def test_the_desktop_command_is_one_handrail_accepts():
    binary = os.environ.get("HANDRAIL_BIN")
    assert binary, "HANDRAIL_BIN names the handrail binary"
    usage = subprocess.run([binary, "serve", "--help"], capture_output=True, text=True, check=True).stdout
    args = of_kind("StatefulSet")[0]["spec"]["template"]["spec"]["containers"][0]["args"]
    assert args[0] == "serve"
    for flag in (a for a in args if a.startswith("--")):
        assert re.search(rf"\s{re.escape(flag)}[\s=]", usage), f"handrail serve has no {flag}"
    containerfile = (DEPLOY / "Containerfile").read_text()
    cmd = json.loads(re.search(r"^CMD (\[.*\])$", containerfile, re.M).group(1))
    assert cmd == args, "the image's default command is the pods' one"


def test_the_containerfile_installs_debian_packages_that_exist_and_drops_root():
    text = (DEPLOY / "Containerfile").read_text().replace("\\\n", " ")
    stage = text.split("AS desktop", 1)[1].split("FROM ", 1)[0]
    install = re.search(r"apt-get install -y --no-install-recommends ([^&]+)", stage).group(1).split()
    assert "chromium" in install and "xvfb" in install and "tesseract-ocr" in install
    shown = subprocess.run(["apt-cache", "show", "--no-all-versions", *install], capture_output=True, text=True)
    assert shown.returncode == 0, shown.stderr
    found = set(re.findall(r"^Package: (\S+)$", shown.stdout, re.M))
    assert found == set(install), f"not in Debian: {set(install) - found}"
    users = re.findall(r"^USER (\S+)$", stage, re.M)
    assert users and not users[-1].startswith(("0", "root")), users
    assert "--read-only" in text


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
