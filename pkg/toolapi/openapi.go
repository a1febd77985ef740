package toolapi

import "github.com/filecontext-aws/filecontext/pkg/fault"

// OpenAPI returns an OpenAPI 3.0.0 document with one POST operation per
// enabled tool (or per named tool, when names are given), in the form
// Bedrock action groups accept: every operation has an operationId and a
// description, schemas carry no enum, allowed values are spelled out in
// descriptions. The whole catalog is more operations than one action group
// takes; GroupOpenAPI gives the document of one group.
func (s *Server) OpenAPI(title string, names ...string) map[string]any {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var tools []*Tool
	for _, t := range s.Enabled() {
		if len(want) == 0 || want[t.Name] {
			tools = append(tools, t)
		}
	}
	doc := s.document(title, tools, false)
	if len(names) == 0 {
		info := doc["info"].(map[string]any)
		info["description"] = "The whole catalog of this host; not the document of one Bedrock action group (at most 11 operations): " +
			"ask GET /openapi.json?group=read, write or graph for those. " + info["description"].(string)
	}
	return doc
}

// Groups are the Bedrock action groups, in the order a deployment lists
// them: read (the read tools and approval status, run by the tools
// function), write (the write tools, each with x-requireConfirmation), graph
// (the graph tools, run by the graph function).
var Groups = []string{"read", "write", "graph"}

// MaxGroupOperations is Bedrock's limit of API operations in one action
// group ("An action group can contain up to 11 API operations", Amazon
// Bedrock user guide, agents-lambda).
const MaxGroupOperations = 11

// GroupTools names the tools of one action group as this host describes
// them; ok is false for an unknown group or one with no tools here. The
// graph group is described from GraphSpecs where the host has no graph.
func (s *Server) GroupTools(group string) ([]*Tool, bool) {
	var tools []*Tool
	isGraph := func(name string) bool {
		return name == ToolGraphSearch || name == ToolGraphExport || name == ToolGraphRelated
	}
	switch group {
	case "read", "write":
		for _, t := range s.Enabled() {
			if !isGraph(t.Name) && t.IsWrite() == (group == "write") {
				tools = append(tools, t)
			}
		}
	case "graph":
		for _, t := range s.Enabled() {
			if isGraph(t.Name) {
				tools = append(tools, t)
			}
		}
		if len(tools) == 0 {
			for _, t := range GraphSpecs() {
				tools = append(tools, &t)
			}
		}
	}
	return tools, len(tools) > 0
}

// GroupOpenAPI returns the OpenAPI document of one action group: the same
// document a deployment embeds in its Bedrock agent.
func (s *Server) GroupOpenAPI(title, group string) (map[string]any, error) {
	tools, ok := s.GroupTools(group)
	if !ok {
		return nil, fault.New(fault.InvalidArgument, "group must be one of read, write (where write tools are enabled) or graph; got %q.", group)
	}
	if len(tools) > MaxGroupOperations {
		return nil, fault.New(fault.Internal, "internal error")
	}
	return s.document(title+" "+group, tools, group == "write"), nil
}

func (s *Server) document(title string, tools []*Tool, confirm bool) map[string]any {
	paths := map[string]any{}
	for _, t := range tools {
		desc := t.Description
		if s.RequiresApproval(t) {
			desc += " This call waits for a human approver."
		}
		op := map[string]any{
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
		}
		if confirm {
			// Bedrock asks the user before the call (x-requireConfirmation in
			// the action group's OpenAPI schema).
			op["x-requireConfirmation"] = "ENABLED"
		}
		paths["/tools/"+t.Name] = map[string]any{"post": op}
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

// AgentCoreToolSchema returns the tool schema a Bedrock AgentCore Gateway
// Lambda target takes: a list of {name, description, inputSchema}, the
// input schemas reduced to the keywords the gateway's schema accepts (type,
// description, properties, required, items). The tools are this host's
// enabled tools.
func (s *Server) AgentCoreToolSchema() []map[string]any {
	var out []map[string]any
	for _, t := range s.Enabled() {
		out = append(out, map[string]any{"name": t.Name, "description": t.Description, "inputSchema": agentCoreSchema(JSONSchema(t.Params, false))})
	}
	return out
}

func agentCoreSchema(v map[string]any) map[string]any {
	o := map[string]any{}
	for _, k := range []string{"type", "description", "required"} {
		if x, ok := v[k]; ok {
			o[k] = x
		}
	}
	if props, ok := v["properties"].(map[string]any); ok {
		p := map[string]any{}
		for name, sub := range props {
			if m, ok := sub.(map[string]any); ok {
				p[name] = agentCoreSchema(m)
			}
		}
		o["properties"] = p
	}
	if items, ok := v["items"].(map[string]any); ok {
		o["items"] = agentCoreSchema(items)
	}
	return o
}
