// Package export turns a study into request records: CogLang generation-eval requests
// (byte-compatible with the reference tool's exports) and toolcall requests, one per
// (case, arm, repeat, attempt), with deterministic ids, seeds and prompts. It also
// builds repair requests (ToolcallPlan.RepairRequests) from what scoring hands it:
// every earlier attempt's output and the public feedback on it (see
// score/toolcall/study's Run.Repairs). Export imports nothing under score/: the
// candidate schemas a study names are compiled with package schemas and the
// vocabularies the caller passes to PlanToolcall.
//
//	study, _ := export.LoadStudy("toolcall-quick")
//	plan, _ := export.PlanToolcall(study, relations.Vocabulary)
//	reqs, _ := plan.Requests(false)
//	for _, req := range reqs {
//		fmt.Println(req.RequestID)
//	}
package export
