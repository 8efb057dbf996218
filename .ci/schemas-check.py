# Checks fbeval's outputs against its published JSON Schemas with a validator
# fbeval did not write: Python's jsonschema (Draft 2020-12, formats asserted),
# as a consumer of the published schemas would. Every line of a .jsonl file is
# one instance; any other file is one document.
# Usage: schemas-check.py SCHEMA_DIR FILE=SCHEMA_NAME ...
import json, os, sys
from jsonschema import Draft202012Validator, FormatChecker, RefResolver

schema_dir = sys.argv[1]
schemas = {}
for name in os.listdir(schema_dir):
    if name.endswith(".schema.json"):
        with open(os.path.join(schema_dir, name), encoding="utf-8") as f:
            schemas[name[: -len(".schema.json")]] = json.load(f)
store = {s["$id"]: s for s in schemas.values()}
failed = False
for arg in sys.argv[2:]:
    path, name = arg.rsplit("=", 1)
    schema = schemas[name]
    validator = Draft202012Validator(schema, resolver=RefResolver.from_schema(schema, store=store), format_checker=FormatChecker())
    with open(path, encoding="utf-8") as f:
        if path.endswith(".jsonl"):
            instances = [json.loads(line) for line in f if line.strip()]
        else:
            instances = [json.load(f)]
    bad = 0
    for i, instance in enumerate(instances, 1):
        for e in validator.iter_errors(instance):
            bad += 1
            if bad <= 3:
                print(f"{path}:{i}: {'/'.join(map(str, e.absolute_path))}: {e.message[:200]}")
    print(f"{path}: {len(instances)} against {name}: {'ok' if bad == 0 else f'{bad} errors'}")
    failed = failed or bad > 0
sys.exit(1 if failed else 0)
