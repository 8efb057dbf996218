// Package relations checks tool-call outputs against fbeval contracts: JSON Schema
// (Draft 2020-12) plus a vocabulary of relation keywords that JSON Schema cannot
// say, because they tie values together: x-compare, x-uniqueKeys, x-count, x-sum,
// x-product, x-references, x-ordered, x-nonOverlapping, x-decimal and x-tensor.
// Numbers are decoded exactly and all arithmetic is exact decimal arithmetic
// (cockroachdb/apd), never float64. A contract may bind output values to the facts
// of an approved context file.
//
// A PASS means the implemented checks passed, nothing more.
//
//	c, err := relations.LoadContract("invoice.contract.json")
//	if err != nil { ... }
//	ctx, err := relations.LoadContext("invoice.context.json")
//	if err != nil { ... }
//	res := c.Check(output, ctx, relations.CheckOptions{})
//	res.WriteText(os.Stdout) // "FAIL" then one reason per line
//
// Vocabulary extends the one compiler configuration of package schemas with the
// vocabulary (schemas.NewCompiler(relations.Vocabulary)), for schemas whose $schema
// is MetaSchemaURL. docs/contracts.md describes the keywords and the
// contract and context files.
package relations
