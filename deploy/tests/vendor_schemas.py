"""Copies the Kubernetes JSON Schemas the manifests are checked against into schemas/: the strict
(no unknown fields) schemas of Kubernetes 1.33 as the PyPI package `kubernetes-validate` 1.37.0 ships
them (generated from the API server's OpenAPI document), reduced to the kinds deploy/k8s uses and the
definitions they reach.

    pip download --no-deps -d /tmp/kv kubernetes-validate==1.37.0
    python deploy/tests/vendor_schemas.py /tmp/kv/kubernetes_validate-1.37.0-py3-none-any.whl
"""

import json
import sys
import zipfile
from pathlib import Path

VERSION = "v1.33.0-local-strict"
KINDS = ["namespace-v1", "service-v1", "statefulset-apps-v1", "networkpolicy-networking-v1", "job-batch-v1",
         "podtemplatespec-v1"]
# How the kinds' files and the definitions themselves point at a definition.
PREFIXES = ("/api/_definitions.json#/$defs/", "#/$defs/")


def refs(node):
    if isinstance(node, dict):
        ref = node.get("$ref")
        for prefix in PREFIXES:
            if isinstance(ref, str) and ref.startswith(prefix):
                yield ref[len(prefix):]
        for value in node.values():
            yield from refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from refs(value)


def main(wheel):
    base = f"kubernetes_validate/kubernetes-json-schema/{VERSION}/"
    out = Path(__file__).resolve().parent / "schemas"
    out.mkdir(exist_ok=True)
    with zipfile.ZipFile(wheel) as z:
        definitions = json.loads(z.read(base + "_definitions.json"))
        kinds = {k: json.loads(z.read(base + k + ".json")) for k in KINDS}
    everything = definitions["$defs"]
    wanted, todo = set(), [r for k in kinds.values() for r in refs(k)]
    while todo:
        name = todo.pop()
        if name not in wanted:
            wanted.add(name)
            todo.extend(refs(everything[name]))
    reduced = dict(definitions, **{"$defs": {n: everything[n] for n in sorted(wanted)}})
    (out / "_definitions.json").write_text(json.dumps(reduced, indent=1, sort_keys=True) + "\n")
    for name, schema in kinds.items():
        (out / f"{name}.json").write_text(json.dumps(schema, indent=1, sort_keys=True) + "\n")
    print(f"{len(kinds)} kinds, {len(wanted)} of {len(everything)} definitions in {out}")


if __name__ == "__main__":
    main(sys.argv[1])
