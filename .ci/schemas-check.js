// Checks fbeval's outputs against its published JSON Schemas with a second
// validator fbeval did not write: Ajv (Draft 2020-12, formats asserted by
// ajv-formats), as a JavaScript consumer of the schemas would. The same
// arguments as schemas-check.py: every line of a .jsonl file is one instance;
// any other file is one document.
// Usage: NODE_PATH=DIR/node_modules node schemas-check.js SCHEMA_DIR FILE=SCHEMA_NAME ...
"use strict";
const fs = require("fs");
const path = require("path");
const Ajv2020 = require("ajv/dist/2020");
const addFormats = require("ajv-formats");

const [schemaDir, ...args] = process.argv.slice(2);
// strict: false: union types and a required member named in an enclosing
// schema are valid Draft 2020-12, which Ajv's strict mode only warns about
const ajv = new Ajv2020({allErrors: true, strict: false});
addFormats(ajv);
const byName = {};
for (const f of fs.readdirSync(schemaDir).sort()) {
  if (!f.endsWith(".schema.json")) continue;
  const schema = JSON.parse(fs.readFileSync(path.join(schemaDir, f), "utf8"));
  ajv.addSchema(schema);
  byName[f.slice(0, -".schema.json".length)] = schema.$id;
}
let failed = false;
for (const arg of args) {
  const at = arg.lastIndexOf("=");
  const file = arg.slice(0, at), name = arg.slice(at + 1);
  const validate = ajv.getSchema(byName[name]);
  const text = fs.readFileSync(file, "utf8");
  const instances = file.endsWith(".jsonl") ? text.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l)) : [JSON.parse(text)];
  let bad = 0;
  instances.forEach((instance, i) => {
    if (validate(instance)) return;
    for (const e of validate.errors) {
      bad++;
      if (bad <= 3) console.log(`${file}:${i + 1}: ${e.instancePath}: ${e.message}`.slice(0, 300));
    }
  });
  console.log(`${file}: ${instances.length} against ${name}: ${bad === 0 ? "ok" : bad + " errors"}`);
  failed = failed || bad > 0;
}
process.exit(failed ? 1 : 0);
