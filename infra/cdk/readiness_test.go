package main

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/fileops/memstore"
	"github.com/filecontext-aws/filecontext/pkg/pathsafe"
	"github.com/filecontext-aws/filecontext/pkg/toolapi"
)

var hashSuffix = regexp.MustCompile(`[0-9A-F]{8}$`)

// render writes a CloudFormation value as a short readable string:
// {"Fn::GetAtt": ["DataBucketE3889A50", "Arn"]} is "DataBucket.Arn".
func render(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case map[string]any:
		if ga, ok := x["Fn::GetAtt"].([]any); ok {
			return hashSuffix.ReplaceAllString(ga[0].(string), "") + "." + fmt.Sprint(ga[1])
		}
		if sub, ok := x["Fn::Sub"].(string); ok {
			return sub
		}
		if ref, ok := x["Ref"].(string); ok {
			return hashSuffix.ReplaceAllString(ref, "")
		}
		if j, ok := x["Fn::Join"].([]any); ok {
			var parts []string
			for _, p := range j[1].([]any) {
				parts = append(parts, render(p))
			}
			return strings.Join(parts, fmt.Sprint(j[0]))
		}
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// grantsOf lists "action resource" for every statement of the policies
// attached to a role, sorted.
func grantsOf(tpl map[string]any, roleLogicalPrefix string) []string {
	var out []string
	for where, stmts := range statements(tpl) {
		if !strings.HasPrefix(where, roleLogicalPrefix) {
			continue
		}
		for _, st := range stmts {
			for _, a := range asList(st["Action"]) {
				for _, r := range asList(st["Resource"]) {
					out = append(out, fmt.Sprint(a)+" "+render(r))
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// defaultBus is the default event bus's ARN as the template renders it.
const defaultBus = "arn:AWS::Partition:events:AWS::Region:AWS::AccountId:event-bus/default"

// TestExactGrants lists, for each function's role, every action and the
// resource it is allowed on: a widening shows here in review.
func TestExactGrants(t *testing.T) {
	_, tpl := synth(t, map[string]any{"env": "dev"})
	want := map[string][]string{
		"ToolsFunctionServiceRole": {
			"dynamodb:GetItem ApprovalsTable.Arn",
			"dynamodb:PutItem ApprovalsTable.Arn",
			"events:PutEvents " + defaultBus,
			"s3:DeleteObject SystemBucket.Arn/staged/*",
			"s3:GetObject DataBucket.Arn/*",
			"s3:ListBucket DataBucket.Arn",
			"s3:ListBucket SystemBucket.Arn",
			"s3:PutObject SystemBucket.Arn/staged/*",
		},
		"ApproveFunctionServiceRole": {
			"dynamodb:GetItem ApprovalsTable.Arn",
			"dynamodb:GetItem ApprovalsTable.Arn/index/*",
			"dynamodb:PutItem ApprovalsTable.Arn",
			"dynamodb:PutItem ApprovalsTable.Arn/index/*",
			"dynamodb:Query ApprovalsTable.Arn",
			"dynamodb:Query ApprovalsTable.Arn/index/*",
			"events:PutEvents " + defaultBus,
			"s3:DeleteObject DataBucket.Arn/*",
			"s3:DeleteObject SystemBucket.Arn/staged/*",
			"s3:GetObject DataBucket.Arn/*",
			"s3:GetObject SystemBucket.Arn/staged/*",
			"s3:ListBucket DataBucket.Arn",
			"s3:ListBucket SystemBucket.Arn",
			"s3:PutObject DataBucket.Arn/*",
		},
		"GraphFunctionServiceRole": {
			"s3:GetObject DataBucket.Arn/*",
			"s3:GetObject SystemBucket.Arn/snapshots/*",
			"s3:ListBucket DataBucket.Arn",
			"s3:ListBucket SystemBucket.Arn",
			"s3:PutObject SystemBucket.Arn/snapshots/*",
			"sqs:GetQueueAttributes GraphRefreshFailures.Arn",
			"sqs:GetQueueUrl GraphRefreshFailures.Arn",
			"sqs:SendMessage GraphRefreshFailures.Arn",
		},
	}
	for role, grants := range want {
		if got := grantsOf(tpl, role); strings.Join(got, "\n") != strings.Join(grants, "\n") {
			t.Errorf("%s is allowed:\n  %s\nwant:\n  %s", role, strings.Join(got, "\n  "), strings.Join(grants, "\n  "))
		}
	}
	_, tpl = synth(t, map[string]any{"env": "dev", "approval": "off"})
	got := strings.Join(grantsOf(tpl, "ToolsFunctionServiceRole"), "\n")
	for _, g := range []string{"s3:PutObject DataBucket.Arn/*", "s3:DeleteObject DataBucket.Arn/*"} {
		if !strings.Contains(got, g) {
			t.Errorf("with approval off the tools function lacks %s", g)
		}
	}
	if strings.Contains(got, "DeleteObjectVersion") || strings.Contains(got, "s3:DeleteObject*") {
		t.Error("a function may delete object versions")
	}
}

// Every function behind the API answers its contract 504 before API
// Gateway's integration timeout; S3-event work keeps the graph function's
// own longer timeout.
func TestTimeoutsFitTheIntegration(t *testing.T) {
	_, tpl := synth(t, map[string]any{"env": "prod"})
	integrationMs := map[float64]bool{}
	for _, m := range resources(tpl, "AWS::ApiGateway::Method") {
		if integ, ok := props(m)["Integration"].(map[string]any); ok {
			ms, _ := integ["TimeoutInMillis"].(float64)
			integrationMs[ms] = true
		}
	}
	if len(integrationMs) != 1 || !integrationMs[IntegrationTimeout*1000] {
		t.Fatalf("integration timeouts %v, want only %d ms", integrationMs, IntegrationTimeout*1000)
	}
	for id, f := range resources(tpl, "AWS::Lambda::Function") {
		env, _ := props(f)["Environment"].(map[string]any)
		vars, _ := env["Variables"].(map[string]any)
		if vars == nil || vars["FILECONTEXT_BUCKET"] == nil {
			continue // CDK's own handlers
		}
		op, err := strconv.Atoi(strings.TrimSuffix(fmt.Sprint(vars["FILECONTEXT_OPERATION_TIMEOUT"]), "s"))
		if err != nil || op >= IntegrationTimeout {
			t.Errorf("%s: operation timeout %v, not under the integration timeout of %d s", id, vars["FILECONTEXT_OPERATION_TIMEOUT"], IntegrationTimeout)
		}
		if timeout := props(f)["Timeout"].(float64); timeout < float64(op) {
			t.Errorf("%s: function timeout %v under its operation timeout %d", id, timeout, op)
		}
	}
}

// The account's API Gateway CloudWatch role comes with the stack and stays
// when the stack is deleted; prod logs execution errors.
func TestCloudWatchRoleAndLogging(t *testing.T) {
	_, tpl := synth(t, map[string]any{"env": "prod"})
	accounts := resources(tpl, "AWS::ApiGateway::Account")
	if len(accounts) != 1 {
		t.Fatalf("%d API Gateway account settings", len(accounts))
	}
	for id, r := range resources(tpl, "AWS::IAM::Role") {
		if strings.HasPrefix(id, "ApiCloudWatchRole") && r["DeletionPolicy"] != "Retain" {
			t.Errorf("%s: DeletionPolicy %v", id, r["DeletionPolicy"])
		}
	}
	for _, st := range resources(tpl, "AWS::ApiGateway::Stage") {
		settings := fmt.Sprint(props(st)["MethodSettings"])
		if !strings.Contains(settings, "LoggingLevel:ERROR") {
			t.Errorf("prod stage method settings %s", settings)
		}
	}
}

// S3 events reach the graph function for ".md" in any letter case; failures
// retry twice and then land in a queue.
func TestGraphEventsAreHandledAndFailuresKept(t *testing.T) {
	_, tpl := synth(t, map[string]any{"env": "prod"})
	var suffixes []string
	for _, n := range resources(tpl, "Custom::S3BucketNotifications") {
		cfgs := props(n)["NotificationConfiguration"].(map[string]any)["LambdaFunctionConfigurations"].([]any)
		for _, c := range cfgs {
			rules := c.(map[string]any)["Filter"].(map[string]any)["Key"].(map[string]any)["FilterRules"].([]any)
			suffixes = append(suffixes, fmt.Sprint(c.(map[string]any)["Events"])+rules[0].(map[string]any)["Value"].(string))
		}
	}
	sort.Strings(suffixes)
	if len(suffixes) != 8 || !strings.Contains(strings.Join(suffixes, " "), ".MD") || !strings.Contains(strings.Join(suffixes, " "), ".mD") {
		t.Errorf("notifications %v", suffixes)
	}
	configs := resources(tpl, "AWS::Lambda::EventInvokeConfig")
	if len(configs) != 1 {
		t.Fatalf("%d event invoke configs", len(configs))
	}
	for _, c := range configs {
		p := props(c)
		dest := fmt.Sprint(p["DestinationConfig"])
		if p["MaximumRetryAttempts"] != 2.0 || !strings.Contains(dest, "GraphRefreshFailures") {
			t.Errorf("graph invoke config %v", p)
		}
	}
	for id, q := range resources(tpl, "AWS::SQS::Queue") {
		if q["DeletionPolicy"] != "Retain" {
			t.Errorf("%s is not retained in prod", id)
		}
	}
}

// prod protects what it cannot get back; no environment names its log
// groups, so a retained group never blocks re-creating a deleted stack.
func TestProdLifecycle(t *testing.T) {
	st, tpl := synth(t, map[string]any{"env": "prod"})
	if !*st.Stack.TerminationProtection() {
		t.Error("prod has no termination protection")
	}
	for id, tb := range resources(tpl, "AWS::DynamoDB::Table") {
		if props(tb)["DeletionProtectionEnabled"] != true {
			t.Errorf("%s has no deletion protection", id)
		}
	}
	data := 0
	for id, b := range resources(tpl, "AWS::S3::Bucket") {
		if props(b)["VersioningConfiguration"] == nil {
			continue
		}
		data++
		rules := fmt.Sprint(props(b)["LifecycleConfiguration"])
		if !strings.Contains(rules, "NoncurrentVersionExpiration:map[NoncurrentDays:30]") {
			t.Errorf("%s lifecycle %s", id, rules)
		}
	}
	if data != 1 {
		t.Errorf("%d versioned buckets", data)
	}
	groups := resources(tpl, "AWS::Logs::LogGroup")
	handlerLogs := 0
	for id, g := range groups {
		name, named := props(g)["LogGroupName"]
		if named && !strings.HasPrefix(id, "BucketNotificationsHandlerLogs") {
			t.Errorf("%s is named %v", id, name)
		}
		if strings.HasPrefix(id, "BucketNotificationsHandlerLogs") {
			handlerLogs++
			if props(g)["RetentionInDays"] != 365.0 {
				t.Errorf("the notifications handler's log group keeps %v days", props(g)["RetentionInDays"])
			}
		}
	}
	if handlerLogs != 1 {
		t.Errorf("%d log groups for the bucket-notifications handler", handlerLogs)
	}
	dev, _ := synth(t, map[string]any{"env": "dev"})
	if *dev.Stack.TerminationProtection() {
		t.Error("dev has termination protection")
	}
}

// The agent gets read and graph by default (10 operations, under Bedrock's
// default 11 APIs per agent); each group's schema is the document the API
// serves at GET /openapi.json?group=; an inference profile grants the
// profile and the models it routes to; the role trusts this account's
// agents only; an alias comes with it.
func TestBedrockAgentIsReady(t *testing.T) {
	st, tpl := synth(t, map[string]any{"env": "dev", "bedrock": "true"})
	agents := resources(tpl, "AWS::Bedrock::Agent")
	if len(agents) != 1 || len(resources(tpl, "AWS::Bedrock::AgentAlias")) != 1 {
		t.Fatalf("%d agents, %d aliases", len(agents), len(resources(tpl, "AWS::Bedrock::AgentAlias")))
	}
	catalog := NewCatalog(Config{})
	files, _ := fileops.New(memstore.New(), pathsafe.Root{}, fileops.DefaultLimits())
	// The tools function's catalog, as internal/app builds it; its router
	// serves GroupOpenAPI at GET /openapi.json?group= (a transport test
	// checks that route).
	served := toolapi.New(toolapi.Options{Files: files, WriteTools: true, Approvals: noApprovals{}})
	for _, a := range agents {
		p := props(a)
		if p["FoundationModel"] != DefaultBedrockModel {
			t.Errorf("model %v", p["FoundationModel"])
		}
		var names []string
		ops := 0
		for _, g := range p["ActionGroups"].([]any) {
			g := g.(map[string]any)
			name := g["ActionGroupName"].(string)
			names = append(names, name)
			payload := g["ApiSchema"].(map[string]any)["Payload"].(string)
			var doc map[string]any
			json.Unmarshal([]byte(payload), &doc)
			ops += len(doc["paths"].(map[string]any))
			fromAPI, err := served.GroupOpenAPI(Title, name)
			a, _ := json.Marshal(doc)
			b, _ := json.Marshal(fromAPI)
			if err != nil || string(a) != string(b) {
				t.Errorf("group %s: the embedded schema differs from GET /openapi.json?group=%s", name, name)
			}
		}
		if strings.Join(names, ",") != "read,graph" || ops > 11 || ops != catalog.Operations([]string{"read", "graph"}) {
			t.Errorf("groups %v with %d operations", names, ops)
		}
	}
	grants := strings.Join(grantsOf(tpl, "AgentRole"), "\n")
	for _, want := range []string{
		"bedrock:InvokeModel arn:${AWS::Partition}:bedrock:${AWS::Region}:${AWS::AccountId}:inference-profile/" + DefaultBedrockModel,
		"bedrock:InvokeModel arn:${AWS::Partition}:bedrock:*::foundation-model/" + strings.TrimPrefix(DefaultBedrockModel, "us."),
	} {
		if !strings.Contains(grants, want) {
			t.Errorf("the agent role lacks %s:\n%s", want, grants)
		}
	}
	for id, r := range resources(tpl, "AWS::IAM::Role") {
		if strings.HasPrefix(id, "AgentRole") {
			trust := fmt.Sprint(props(r)["AssumeRolePolicyDocument"])
			if !strings.Contains(trust, "aws:SourceAccount") || !strings.Contains(trust, "aws:SourceArn") {
				t.Errorf("the agent role's trust policy has no confused-deputy conditions: %s", trust)
			}
		}
	}
	_ = st
	// The write group is an explicit choice over the default quota.
	app := newApp(t, map[string]any{"env": "dev", "bedrock": "true", "bedrockGroups": "read,write,graph"})
	if _, err := ConfigFromContext(app); err == nil || !strings.Contains(err.Error(), "APIs per agent") {
		t.Errorf("14 APIs under the default quota: %v", err)
	}
	_, tpl = synth(t, map[string]any{"env": "dev", "bedrock": "true", "bedrockGroups": "read,write,graph", "bedrockMaxApis": "20", "bedrockModel": "anthropic.claude-3-haiku-20240307-v1:0"})
	for _, a := range resources(tpl, "AWS::Bedrock::Agent") {
		if n := len(props(a)["ActionGroups"].([]any)); n != 3 {
			t.Errorf("%d groups with the quota raised", n)
		}
	}
	if g := strings.Join(grantsOf(tpl, "AgentRole"), "\n"); !strings.Contains(g, "bedrock:${AWS::Region}::foundation-model/anthropic.claude-3-haiku") || strings.Contains(g, "inference-profile") {
		t.Errorf("a plain model id grants:\n%s", g)
	}
}

// POST /mcp reaches every enabled tool, so only the writer policy allows
// it; the read-only policy must not.
func TestMCPRouteIsForWritersOnly(t *testing.T) {
	_, tpl := synth(t, map[string]any{"env": "dev"})
	allows := map[string]bool{}
	for id, r := range resources(tpl, "AWS::IAM::ManagedPolicy") {
		b, _ := json.Marshal(props(r)["PolicyDocument"])
		allows[hashSuffix.ReplaceAllString(id, "")] = strings.Contains(string(b), "/POST/mcp")
	}
	if !allows["AgentWriterPolicy"] || allows["AgentReadOnlyPolicy"] || allows["ApproverPolicy"] {
		t.Errorf("policies allowing POST /mcp: %v", allows)
	}
	if _, err := os.Stat("cdk.json"); err != nil {
		t.Fatal(err)
	}
}

// Approval requests reach an SNS topic through an EventBridge rule (with an
// e-mail subscription when asked), and a rule every 15 minutes runs the
// sweep; undeliverable events wait in a queue.
func TestApprovalNotifications(t *testing.T) {
	_, tpl := synth(t, map[string]any{"env": "dev", "approvalEmail": "ops@example.com"})
	topics := resources(tpl, "AWS::SNS::Topic")
	if len(topics) != 1 {
		t.Fatalf("%d topics", len(topics))
	}
	subs := resources(tpl, "AWS::SNS::Subscription")
	if len(subs) != 1 {
		t.Fatalf("%d subscriptions", len(subs))
	}
	for _, sub := range subs {
		if props(sub)["Protocol"] != "email" || props(sub)["Endpoint"] != "ops@example.com" {
			t.Errorf("subscription %v", props(sub))
		}
	}
	var requested, schedule bool
	for _, r := range resources(tpl, "AWS::Events::Rule") {
		p := props(r)
		pattern, _ := json.Marshal(p["EventPattern"])
		targets := fmt.Sprint(p["Targets"])
		switch {
		case strings.Contains(string(pattern), `"Approval Requested"`) && strings.Contains(string(pattern), `"filecontext"`):
			requested = strings.Contains(targets, "ApprovalRequests") && strings.Contains(targets, "DeadLetterConfig")
		case p["ScheduleExpression"] == "rate(15 minutes)":
			schedule = strings.Contains(targets, "ApproveFunction") && strings.Contains(targets, "DeadLetterConfig")
		}
	}
	if !requested || !schedule {
		t.Errorf("requested rule %v, sweep schedule %v", requested, schedule)
	}
	for id, f := range resources(tpl, "AWS::Lambda::Function") {
		vars, _ := props(f)["Environment"].(map[string]any)
		if v, ok := vars["Variables"].(map[string]any); ok && v["FILECONTEXT_BUCKET"] != nil && v["FILECONTEXT_APPROVAL_EVENTS"] != "eventbridge" {
			t.Errorf("%s does not publish approval events", id)
		}
	}
	_, tpl = synth(t, map[string]any{"env": "dev"})
	if n := len(resources(tpl, "AWS::SNS::Subscription")); n != 0 {
		t.Errorf("%d subscriptions without approvalEmail", n)
	}
}
