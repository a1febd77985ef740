package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"
)

// assets returns the folder of the function zips, building them once.
func assets(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("..", "..", "dist", "lambda")
	if _, err := os.Stat(filepath.Join(dir, "graph.zip")); err != nil {
		out, err := exec.Command("bash", filepath.Join("..", "..", "scripts", "build-lambdas.sh")).CombinedOutput()
		if err != nil {
			t.Fatalf("building the functions: %v\n%s", err, out)
		}
	}
	return dir
}

// synth builds the stack for a context and returns its template as JSON.
func synth(t *testing.T, ctx map[string]any) (*Stack, map[string]any) {
	t.Helper()
	_, st := newStack(t, ctx)
	tpl := assertions.Template_FromStack(st.Stack, nil)
	return st, *tpl.ToJSON()
}

// newStack builds the stack of a context in a new app, not yet synthesized.
func newStack(t *testing.T, ctx map[string]any) (awscdk.App, *Stack) {
	t.Helper()
	app := newApp(t, ctx)
	cfg, err := ConfigFromContext(app)
	if err != nil {
		t.Fatal(err)
	}
	return app, NewStack(app, cfg)
}

// newApp is an app with a context and the built function zips.
// The feature flags of cdk.json (what `cdk deploy` reads) apply as in a
// deployment.
func newApp(t *testing.T, ctx map[string]any) awscdk.App {
	t.Helper()
	b, err := os.ReadFile("cdk.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct{ Context map[string]any }
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	all := map[string]any{}
	for k, v := range file.Context {
		all[k] = v
	}
	for k, v := range ctx {
		all[k] = v
	}
	all["assets"] = assets(t)
	return awscdk.NewApp(&awscdk.AppProps{Context: &all, Outdir: jsii.String(t.TempDir())})
}

func resources(tpl map[string]any, typ string) map[string]map[string]any {
	out := map[string]map[string]any{}
	for id, r := range tpl["Resources"].(map[string]any) {
		res := r.(map[string]any)
		if res["Type"] == typ {
			out[id] = res
		}
	}
	return out
}

func props(r map[string]any) map[string]any {
	p, _ := r["Properties"].(map[string]any)
	return p
}

func TestEveryMethodIsSignedWithIAM(t *testing.T) {
	_, tpl := synth(t, map[string]any{"env": "dev"})
	methods := resources(tpl, "AWS::ApiGateway::Method")
	if len(methods) < 19 {
		t.Fatalf("%d methods", len(methods))
	}
	for id, m := range methods {
		if props(m)["AuthorizationType"] != "AWS_IAM" {
			t.Errorf("%s: AuthorizationType %v", id, props(m)["AuthorizationType"])
		}
	}
	// One resource per tool, so IAM can allow tools one by one.
	paths := map[string]bool{}
	for _, r := range resources(tpl, "AWS::ApiGateway::Resource") {
		paths[props(r)["PathPart"].(string)] = true
	}
	for _, tool := range []string{"file_access_read", "file_access_write", "file_context_markdown_graph_search", "file_context_approval_status", "approve", "reject", "{approvalId}", "openapi.json"} {
		if !paths[tool] {
			t.Errorf("no API resource %q", tool)
		}
	}
}

// statements returns every IAM statement of the template with where it is.
func statements(tpl map[string]any) map[string][]map[string]any {
	out := map[string][]map[string]any{}
	addDoc := func(where string, doc any) {
		d, _ := doc.(map[string]any)
		list, _ := d["Statement"].([]any)
		for _, s := range list {
			out[where] = append(out[where], s.(map[string]any))
		}
	}
	for id, r := range resources(tpl, "AWS::IAM::Policy") {
		addDoc(id, props(r)["PolicyDocument"])
	}
	for id, r := range resources(tpl, "AWS::IAM::ManagedPolicy") {
		addDoc(id, props(r)["PolicyDocument"])
	}
	for id, r := range resources(tpl, "AWS::IAM::Role") {
		if pols, ok := props(r)["Policies"].([]any); ok {
			for _, p := range pols {
				addDoc(id, p.(map[string]any)["PolicyDocument"])
			}
		}
	}
	return out
}

func asList(v any) []any {
	if l, ok := v.([]any); ok {
		return l
	}
	return []any{v}
}

func TestNoWildcardPolicies(t *testing.T) {
	for _, ctx := range []map[string]any{{"env": "dev"}, {"env": "prod", "bedrock": "true"}} {
		_, tpl := synth(t, ctx)
		count := 0
		for where, stmts := range statements(tpl) {
			for _, s := range stmts {
				count++
				for _, a := range asList(s["Action"]) {
					if a == "*" || strings.HasSuffix(fmt.Sprint(a), ":*") {
						t.Errorf("%v %s: action %v", ctx, where, a)
					}
				}
				for _, r := range asList(s["Resource"]) {
					if r == "*" {
						t.Errorf("%v %s: resource * for %v", ctx, where, s["Action"])
					}
				}
			}
		}
		if count < 10 {
			t.Errorf("only %d statements found: the scan is not looking", count)
		}
		for id, r := range resources(tpl, "AWS::IAM::Role") {
			for _, arn := range asList(props(r)["ManagedPolicyArns"]) {
				if strings.Contains(fmt.Sprint(arn), "FullAccess") {
					t.Errorf("%s attaches %v", id, arn)
				}
			}
		}
	}
}

// writesData reports whether the role of a function may write the data
// bucket.
func writesData(t *testing.T, st *Stack, tpl map[string]any, fnRoleLogicalPrefix string) bool {
	t.Helper()
	dataID := *st.Stack.GetLogicalId(st.Data.Node().DefaultChild().(awscdk.CfnElement))
	for where, stmts := range statements(tpl) {
		if !strings.HasPrefix(where, fnRoleLogicalPrefix) {
			continue
		}
		for _, s := range stmts {
			res, _ := json.Marshal(s["Resource"])
			if !strings.Contains(string(res), dataID) {
				continue
			}
			for _, a := range asList(s["Action"]) {
				if strings.HasPrefix(fmt.Sprint(a), "s3:Put") || strings.HasPrefix(fmt.Sprint(a), "s3:Delete") || strings.HasPrefix(fmt.Sprint(a), "s3:Abort") {
					return true
				}
			}
		}
	}
	return false
}

func TestOnlyTheApproveFunctionWritesData(t *testing.T) {
	st, tpl := synth(t, map[string]any{"env": "dev"})
	if writesData(t, st, tpl, "ToolsFunctionServiceRole") {
		t.Error("the tools function may write the data bucket while approval is required")
	}
	if writesData(t, st, tpl, "GraphFunctionServiceRole") {
		t.Error("the graph function may write the data bucket")
	}
	if !writesData(t, st, tpl, "ApproveFunctionServiceRole") {
		t.Error("the approve function may not write the data bucket")
	}
	st, tpl = synth(t, map[string]any{"env": "dev", "approval": "off"})
	if !writesData(t, st, tpl, "ToolsFunctionServiceRole") {
		t.Error("with approval off the tools function cannot apply writes")
	}
}

func TestFunctions(t *testing.T) {
	_, tpl := synth(t, map[string]any{"env": "staging"})
	fns := 0
	for id, f := range resources(tpl, "AWS::Lambda::Function") {
		p := props(f)
		name, _ := p["FunctionName"].(string)
		if !strings.HasPrefix(name, "filecontext-staging-") {
			continue // CDK's own custom-resource handlers
		}
		fns++
		if p["Runtime"] != "provided.al2023" || fmt.Sprint(p["Architectures"]) != "[arm64]" || p["Handler"] != "bootstrap" {
			t.Errorf("%s: runtime %v, architectures %v", id, p["Runtime"], p["Architectures"])
		}
		env := p["Environment"].(map[string]any)["Variables"].(map[string]any)
		for _, k := range []string{"FILECONTEXT_BUCKET", "FILECONTEXT_SYSTEM_BUCKET", "FILECONTEXT_APPROVALS_TABLE", "FILECONTEXT_WRITE_TOOLS", "FILECONTEXT_APPROVAL"} {
			if env[k] == nil {
				t.Errorf("%s lacks %s", name, k)
			}
		}
		if env["FILECONTEXT_APPROVAL"] != "required" || p["MemorySize"] == nil || p["Timeout"] == nil || p["LoggingConfig"] == nil {
			t.Errorf("%s: %v", name, p)
		}
	}
	if fns != 3 {
		t.Errorf("%d project functions, want 3", fns)
	}
}

func TestProdRetainsData(t *testing.T) {
	for env, want := range map[string]string{"prod": "Retain", "dev": "Delete"} {
		_, tpl := synth(t, map[string]any{"env": env})
		for _, typ := range []string{"AWS::S3::Bucket", "AWS::DynamoDB::Table"} {
			for id, r := range resources(tpl, typ) {
				if r["DeletionPolicy"] != want {
					t.Errorf("%s %s: DeletionPolicy %v, want %s", env, id, r["DeletionPolicy"], want)
				}
			}
		}
		for _, table := range resources(tpl, "AWS::DynamoDB::Table") {
			pitr := props(table)["PointInTimeRecoverySpecification"].(map[string]any)["PointInTimeRecoveryEnabled"]
			if pitr != (env == "prod") {
				t.Errorf("%s: point-in-time recovery %v", env, pitr)
			}
			if props(table)["TimeToLiveSpecification"].(map[string]any)["AttributeName"] != "expiresAtEpoch" {
				t.Errorf("%s: TTL %v", env, props(table)["TimeToLiveSpecification"])
			}
		}
	}
}

func TestBedrockActionGroups(t *testing.T) {
	_, tpl := synth(t, map[string]any{"env": "dev"})
	if len(resources(tpl, "AWS::Bedrock::Agent")) != 0 {
		t.Error("an agent without the bedrock flag")
	}
	_, tpl = synth(t, map[string]any{"env": "dev", "bedrock": "true"})
	agents := resources(tpl, "AWS::Bedrock::Agent")
	if len(agents) != 1 {
		t.Fatalf("%d agents", len(agents))
	}
	for _, a := range agents {
		groups := props(a)["ActionGroups"].([]any)
		if len(groups) != 2 {
			t.Errorf("%d action groups, want read and graph", len(groups))
		}
		for _, g := range groups {
			g := g.(map[string]any)
			var doc map[string]any
			if err := json.Unmarshal([]byte(g["ApiSchema"].(map[string]any)["Payload"].(string)), &doc); err != nil {
				t.Fatal(err)
			}
			paths := doc["paths"].(map[string]any)
			if len(paths) == 0 || len(paths) > 11 {
				t.Errorf("group %s has %d operations", g["ActionGroupName"], len(paths))
			}
			for p, item := range paths {
				confirm := item.(map[string]any)["post"].(map[string]any)["x-requireConfirmation"]
				if (g["ActionGroupName"] == "write") != (confirm == "ENABLED") {
					t.Errorf("group %s, %s: x-requireConfirmation %v", g["ActionGroupName"], p, confirm)
				}
			}
			if strings.Contains(g["ApiSchema"].(map[string]any)["Payload"].(string), `"enum"`) {
				t.Errorf("group %s has an enum", g["ActionGroupName"])
			}
		}
	}
	bedrockPerms := 0
	for _, p := range resources(tpl, "AWS::Lambda::Permission") {
		if props(p)["Principal"] == "bedrock.amazonaws.com" {
			bedrockPerms++
		}
	}
	if bedrockPerms != 2 {
		t.Errorf("%d permissions for Bedrock, want 2 (tools and graph)", bedrockPerms)
	}
}

func TestBadContextIsRefused(t *testing.T) {
	for _, ctx := range []map[string]any{{"env": "qa"}, {"env": "dev", "approval": "maybe"}, {"env": "dev", "assets": t.TempDir()}} {
		app := awscdk.NewApp(&awscdk.AppProps{Context: &ctx})
		if _, err := ConfigFromContext(app); err == nil {
			t.Errorf("context %v accepted", ctx)
		}
	}
}
