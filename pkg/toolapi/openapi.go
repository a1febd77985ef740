package toolapi

// OpenAPI returns an OpenAPI 3.0.0 document with one POST operation per
// enabled tool (or per named tool, when names are given), in the form
// Bedrock action groups accept: every operation has an operationId and a
// description, schemas carry no enum, allowed values are spelled out in
// descriptions.
func (s *Server) OpenAPI(title string, names ...string) map[string]any {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	paths := map[string]any{}
	for _, t := range s.Enabled() {
		if len(want) > 0 && !want[t.Name] {
			continue
		}
		desc := t.Description
		if s.RequiresApproval(t) {
			desc += " This call waits for a human approver."
		}
		paths["/tools/"+t.Name] = map[string]any{
			"post": map[string]any{
				"operationId": t.Name,
				"summary":     t.Name,
				"description": desc,
				"requestBody": map[string]any{
					"required": true,
					"content": map[string]any{
						"application/json": map[string]any{"schema": JSONSchema(t.Params, false)},
					},
				},
				"responses": map[string]any{
					"200":     jsonResponse("The tool's result object."),
					"202":     jsonResponse("The change waits for approval: {status: 'pending_approval', approvalId, ...}."),
					"default": jsonResponse("An error: {error: {code, message, path?, details?}}."),
				},
			},
		}
	}
	return map[string]any{
		"openapi": "3.0.0",
		"info": map[string]any{
			"title":       title,
			"version":     "1.0.0",
			"description": "Bounded file tools over a shared store. " + s.Instructions(),
		},
		"paths": paths,
	}
}

func jsonResponse(desc string) map[string]any {
	return map[string]any{
		"description": desc,
		"content": map[string]any{
			"application/json": map[string]any{"schema": map[string]any{"type": "object"}},
		},
	}
}
