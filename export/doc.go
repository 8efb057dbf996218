// Package export turns a study into request records: CogLang generation-eval requests
// (byte-compatible with the reference tool's exports) and toolcall requests, one per
// (case, arm, repeat, attempt), with deterministic ids, seeds and prompts. It also
// builds repair requests from a failed attempt and its public feedback.
//
//	study, _ := export.LoadStudy("toolcall-quick")
//	plan, _ := export.PlanToolcall(study)
//	for _, req := range plan.Requests(false) {
//		fmt.Println(req.RequestID)
//	}
package export
