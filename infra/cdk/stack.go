package main

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigateway"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsbedrock"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambdadestinations"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3notifications"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

var s = jsii.String

// Stack holds the constructs tests look at.
type Stack struct {
	Stack        awscdk.Stack
	Data, System awss3.Bucket
	Table        awsdynamodb.Table
	Tools        awslambda.Function
	Approve      awslambda.Function
	Graph        awslambda.Function
	Api          awsapigateway.RestApi
	GraphFailed  awssqs.Queue // S3-event refreshes that failed every retry
}

// IntegrationTimeout is API Gateway's REST integration timeout: 29 seconds,
// the default and the most a Regional API gets without a quota increase
// ("Amazon API Gateway quotas", Maximum integration timeout). Every
// function behind the API answers its own 504 before it.
const IntegrationTimeout = 29

// OperationTimeout is the deadline of every API call inside the functions
// (FILECONTEXT_OPERATION_TIMEOUT): a second under the integration timeout,
// so the contract's 504 is written before API Gateway gives up.
const OperationTimeout = IntegrationTimeout - 1

// NewStack builds the whole bundle for one environment.
func NewStack(scope constructs.Construct, cfg Config) *Stack {
	st := &Stack{Stack: awscdk.NewStack(scope, s("FileContext-"+cfg.Env), &awscdk.StackProps{
		Description:           s("FileContext for AWS (" + cfg.Env + "): bounded file tools for agents over S3, with approvals and a Markdown knowledge graph."),
		TerminationProtection: jsii.Bool(cfg.Prod()),
	})}
	awscdk.Tags_Of(st.Stack).Add(s("project"), s("filecontext"), nil)
	awscdk.Tags_Of(st.Stack).Add(s("environment"), s(cfg.Env), nil)
	removal := awscdk.RemovalPolicy_DESTROY
	if cfg.Prod() {
		removal = awscdk.RemovalPolicy_RETAIN
	}
	retention := awslogs.RetentionDays_ONE_MONTH
	if cfg.Prod() {
		retention = awslogs.RetentionDays_ONE_YEAR
	}

	st.Data = awss3.NewBucket(st.Stack, s("DataBucket"), &awss3.BucketProps{
		Versioned:         jsii.Bool(true),
		Encryption:        awss3.BucketEncryption_S3_MANAGED,
		BlockPublicAccess: awss3.BlockPublicAccess_BLOCK_ALL(),
		EnforceSSL:        jsii.Bool(true),
		RemovalPolicy:     removal,
		AutoDeleteObjects: jsii.Bool(!cfg.Prod()),
		ObjectOwnership:   awss3.ObjectOwnership_BUCKET_OWNER_ENFORCED,
		// Old versions are the undo of every approved change; they are kept
		// for noncurrentDays, then removed, so storage does not grow forever.
		LifecycleRules: &[]*awss3.LifecycleRule{{
			Id:                          s("noncurrent-versions"),
			NoncurrentVersionExpiration: awscdk.Duration_Days(jsii.Number(float64(cfg.NoncurrentDays))),
		}},
	})
	st.System = awss3.NewBucket(st.Stack, s("SystemBucket"), &awss3.BucketProps{
		Encryption:        awss3.BucketEncryption_S3_MANAGED,
		BlockPublicAccess: awss3.BlockPublicAccess_BLOCK_ALL(),
		EnforceSSL:        jsii.Bool(true),
		RemovalPolicy:     removal,
		AutoDeleteObjects: jsii.Bool(!cfg.Prod()),
		ObjectOwnership:   awss3.ObjectOwnership_BUCKET_OWNER_ENFORCED,
		LifecycleRules: &[]*awss3.LifecycleRule{
			{Id: s("staged-content"), Prefix: s("staged/"), Expiration: awscdk.Duration_Days(jsii.Number(30))},
			{Id: s("snapshots"), Prefix: s("snapshots/"), Expiration: awscdk.Duration_Days(jsii.Number(90))},
		},
	})
	st.Table = awsdynamodb.NewTable(st.Stack, s("ApprovalsTable"), &awsdynamodb.TableProps{
		PartitionKey:        &awsdynamodb.Attribute{Name: s("approvalId"), Type: awsdynamodb.AttributeType_STRING},
		BillingMode:         awsdynamodb.BillingMode_PAY_PER_REQUEST,
		TimeToLiveAttribute: s("expiresAtEpoch"),
		PointInTimeRecoverySpecification: &awsdynamodb.PointInTimeRecoverySpecification{
			PointInTimeRecoveryEnabled: jsii.Bool(cfg.Prod()),
		},
		Encryption:         awsdynamodb.TableEncryption_AWS_MANAGED,
		RemovalPolicy:      removal,
		DeletionProtection: jsii.Bool(cfg.Prod()),
	})
	st.Table.AddGlobalSecondaryIndex(&awsdynamodb.GlobalSecondaryIndexProps{
		IndexName:      s("byStatus"),
		PartitionKey:   &awsdynamodb.Attribute{Name: s("status"), Type: awsdynamodb.AttributeType_STRING},
		SortKey:        &awsdynamodb.Attribute{Name: s("requestedKey"), Type: awsdynamodb.AttributeType_STRING},
		ProjectionType: awsdynamodb.ProjectionType_ALL,
	})

	common := map[string]*string{
		"FILECONTEXT_BUCKET":          st.Data.BucketName(),
		"FILECONTEXT_SYSTEM_BUCKET":   st.System.BucketName(),
		"FILECONTEXT_APPROVALS_TABLE": st.Table.TableName(),
		"FILECONTEXT_WRITE_TOOLS":     s("enabled"),
		"FILECONTEXT_APPROVAL":        s(map[bool]string{true: "off", false: "required"}[cfg.ApprovalOff]),
		// Every API call answers within the integration timeout; S3-event
		// snapshot work in the graph function has no caller and keeps the
		// function's own timeout.
		"FILECONTEXT_OPERATION_TIMEOUT":  s(fmt.Sprintf("%ds", OperationTimeout)),
		"FILECONTEXT_APPROVAL_RETENTION": s(fmt.Sprintf("%dh", cfg.ApprovalRetentionDays*24)),
		// Approval transitions go to the account's default event bus.
		"FILECONTEXT_APPROVAL_EVENTS": s("eventbridge"),
	}
	if cfg.S3PathStyle {
		common["FILECONTEXT_S3_PATH_STYLE"] = s("true")
	}
	function := func(id, name string, memory float64, timeout float64, extra map[string]*string, tune func(*awslambda.FunctionProps)) awslambda.Function {
		env := map[string]*string{}
		for k, v := range common {
			env[k] = v
		}
		for k, v := range extra {
			env[k] = v
		}
		// The log group is named by CloudFormation, not after the function:
		// a retained group of a deleted stack never blocks re-creating it.
		logs := awslogs.NewLogGroup(st.Stack, s(id+"Logs"), &awslogs.LogGroupProps{Retention: retention, RemovalPolicy: removal})
		props := &awslambda.FunctionProps{
			FunctionName:  s(cfg.Name(name)),
			Runtime:       awslambda.Runtime_PROVIDED_AL2023(),
			Architecture:  map[bool]awslambda.Architecture{true: awslambda.Architecture_ARM_64(), false: awslambda.Architecture_X86_64()}[cfg.Architecture == "arm64"],
			Handler:       s("bootstrap"),
			Code:          awslambda.Code_FromAsset(s(filepath.Join(cfg.Assets, name+".zip")), nil),
			MemorySize:    jsii.Number(memory),
			Timeout:       awscdk.Duration_Seconds(jsii.Number(timeout)),
			Environment:   &env,
			LogGroup:      logs,
			LoggingFormat: awslambda.LoggingFormat_JSON,
			Description:   s("FileContext " + name + " (" + cfg.Env + ")"),
		}
		if cfg.Tracing {
			props.Tracing = awslambda.Tracing_ACTIVE
		}
		if tune != nil {
			tune(props)
		}
		return awslambda.NewFunction(st.Stack, s(id), props)
	}
	st.Tools = function("ToolsFunction", "tools", 512, 30, nil, nil)
	st.Approve = function("ApproveFunction", "approve", 512, 30, nil, nil)
	// S3 invokes the graph function asynchronously: two retries, then the
	// event goes to a queue an operator can read and replay.
	st.GraphFailed = awssqs.NewQueue(st.Stack, s("GraphRefreshFailures"), &awssqs.QueueProps{
		RetentionPeriod: awscdk.Duration_Days(jsii.Number(14)),
		EnforceSSL:      jsii.Bool(true),
		Encryption:      awssqs.QueueEncryption_SQS_MANAGED,
		RemovalPolicy:   removal,
	})
	st.Graph = function("GraphFunction", "graph", 1024, 60, nil, func(p *awslambda.FunctionProps) {
		p.OnFailure = awslambdadestinations.NewSqsDestination(st.GraphFailed)
		p.RetryAttempts = jsii.Number(2)
		p.MaxEventAge = awscdk.Duration_Hours(jsii.Number(1))
		if cfg.GraphConcurrency > 0 {
			p.ReservedConcurrentExecutions = jsii.Number(float64(cfg.GraphConcurrency))
		}
	})

	st.grantExactly(cfg)

	// S3's suffix filter is case-sensitive (S3 user guide, "Configuring event
	// notifications using object key name filtering"), so each letter case of
	// ".md" gets its own filter; the function checks the suffix again.
	for _, ev := range []awss3.EventType{awss3.EventType_OBJECT_CREATED, awss3.EventType_OBJECT_REMOVED} {
		for _, suffix := range []string{".md", ".MD", ".Md", ".mD"} {
			st.Data.AddEventNotification(ev, awss3notifications.NewLambdaDestination(st.Graph), &awss3.NotificationKeyFilter{Suffix: s(suffix)})
		}
	}

	st.notifications(cfg, removal)

	catalog := NewCatalog(cfg)
	st.api(cfg, catalog, removal, retention)
	if cfg.Bedrock {
		st.bedrock(cfg, catalog)
	}
	st.narrowNotificationsPolicy()
	st.notificationsHandlerLogs(retention, removal)
	st.accessLogs(cfg)
	st.suppressFindings(cfg)

	out := func(id string, v *string, desc string) {
		awscdk.NewCfnOutput(st.Stack, s(id), &awscdk.CfnOutputProps{Value: v, Description: s(desc)})
	}
	out("DataBucketName", st.Data.BucketName(), "The data bucket agents' files live in")
	out("SystemBucketName", st.System.BucketName(), "Staged content and graph snapshots; never reachable by agents")
	out("ApprovalsTableName", st.Table.TableName(), "The approvals table")
	out("GraphRefreshFailuresQueueUrl", st.GraphFailed.QueueUrl(), "S3 events the graph function failed to process after its retries")
	return st
}

// api builds the REST API: AWS_IAM on every method, one resource per tool,
// the approval routes, access logs, throttling, and the managed policies
// callers attach.
func (st *Stack) api(cfg Config, catalog *Catalog, removal awscdk.RemovalPolicy, retention awslogs.RetentionDays) {
	access := awslogs.NewLogGroup(st.Stack, s("ApiAccessLogs"), &awslogs.LogGroupProps{Retention: retention, RemovalPolicy: removal})
	st.Api = awsapigateway.NewRestApi(st.Stack, s("Api"), &awsapigateway.RestApiProps{
		RestApiName:          s(cfg.Name("api")),
		Description:          s("FileContext tools and approvals (" + cfg.Env + "), signed with SigV4"),
		DefaultMethodOptions: &awsapigateway.MethodOptions{AuthorizationType: awsapigateway.AuthorizationType_IAM},
		EndpointTypes:        &[]awsapigateway.EndpointType{awsapigateway.EndpointType_REGIONAL},
		DeployOptions: &awsapigateway.StageOptions{
			StageName:      s(cfg.Env),
			TracingEnabled: jsii.Bool(cfg.Tracing),
			// Execution logs of failed calls, in every environment: at ERROR
			// they cost little and are what an operator reads first.
			LoggingLevel:         awsapigateway.MethodLoggingLevel_ERROR,
			AccessLogDestination: awsapigateway.NewLogGroupLogDestination(access),
			AccessLogFormat:      awsapigateway.AccessLogFormat_JsonWithStandardFields(nil),
			ThrottlingRateLimit:  jsii.Number(50),
			ThrottlingBurstLimit: jsii.Number(100),
			MetricsEnabled:       jsii.Bool(true),
		},
		// A stage with access logs needs the account's API Gateway
		// CloudWatch role; the stack provides it and keeps it on delete, as
		// other APIs of the account may rely on it.
		CloudWatchRole:              jsii.Bool(true),
		CloudWatchRoleRemovalPolicy: awscdk.RemovalPolicy_RETAIN,
	})
	integration := func(fn awslambda.Function) awsapigateway.LambdaIntegration {
		return awsapigateway.NewLambdaIntegration(fn, &awsapigateway.LambdaIntegrationOptions{
			Timeout: awscdk.Duration_Seconds(jsii.Number(IntegrationTimeout)),
		})
	}
	tools, graph, approve := integration(st.Tools), integration(st.Graph), integration(st.Approve)
	root := st.Api.Root()
	toolsRes := root.AddResource(s("tools"), nil)
	toolsRes.AddMethod(s("GET"), tools, nil)
	root.AddResource(s("openapi.json"), nil).AddMethod(s("GET"), tools, nil)
	for _, name := range append(catalog.ReadTools(), catalog.WriteTools()...) {
		toolsRes.AddResource(s(name), nil).AddMethod(s("POST"), tools, nil)
	}
	for _, name := range catalog.GraphTools() {
		toolsRes.AddResource(s(name), nil).AddMethod(s("POST"), graph, nil)
	}
	// MCP's streamable HTTP, served by the tools function. Every enabled
	// tool is reachable through it, so only the writer policy allows it.
	root.AddResource(s("mcp"), nil).AddMethod(s("POST"), tools, nil)
	approvals := root.AddResource(s("approvals"), nil)
	approvals.AddMethod(s("GET"), approve, nil)
	one := approvals.AddResource(s("{approvalId}"), nil)
	one.AddMethod(s("GET"), approve, nil)
	one.AddResource(s("approve"), nil).AddMethod(s("POST"), approve, nil)
	one.AddResource(s("reject"), nil).AddMethod(s("POST"), approve, nil)

	stage := s(cfg.Env)
	invoke := func(routes ...[2]string) []*string {
		var arns []*string
		for _, r := range routes {
			arns = append(arns, st.Api.ArnForExecuteApi(s(r[0]), s(r[1]), stage))
		}
		return arns
	}
	post := func(names []string) [][2]string {
		var r [][2]string
		for _, n := range names {
			r = append(r, [2]string{"POST", "/tools/" + n})
		}
		return r
	}
	catalogRoutes := [][2]string{{"GET", "/tools"}, {"GET", "/openapi.json"}}
	reading := append(append(catalogRoutes, post(withoutApprovalStatus(catalog.ReadTools()))...), post(catalog.GraphTools())...)
	writing := append(append(append(reading, post([]string{"file_context_approval_status"})...), post(catalog.WriteTools())...), [2]string{"POST", "/mcp"})
	policy := func(id, name, desc string, routes [][2]string) awsiam.ManagedPolicy {
		return awsiam.NewManagedPolicy(st.Stack, s(id), &awsiam.ManagedPolicyProps{
			ManagedPolicyName: s(cfg.Name(name)),
			Description:       s(desc),
			Statements: &[]awsiam.PolicyStatement{awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
				Actions:   &[]*string{s("execute-api:Invoke")},
				Resources: ptrs(invoke(routes...)),
			})},
		})
	}
	reader := policy("AgentReadOnlyPolicy", "agent-read-only", "Call the read tools and the graph tools of FileContext", reading)
	writer := policy("AgentWriterPolicy", "agent-writer", "Call every FileContext tool, write tools included (writes wait for approval)", writing)
	approver := policy("ApproverPolicy", "approver", "List, approve and reject FileContext approvals",
		[][2]string{{"GET", "/approvals"}, {"GET", "/approvals/*"}, {"POST", "/approvals/*/approve"}, {"POST", "/approvals/*/reject"}})
	out := func(id string, v *string, desc string) {
		awscdk.NewCfnOutput(st.Stack, s(id), &awscdk.CfnOutputProps{Value: v, Description: s(desc)})
	}
	out("ApiUrl", st.Api.Url(), "Base URL of the REST API (SigV4, service execute-api)")
	out("AgentReadOnlyPolicyArn", reader.ManagedPolicyArn(), "Attach to an agent's role: read tools")
	out("AgentWriterPolicyArn", writer.ManagedPolicyArn(), "Attach to an agent's role: read and write tools")
	out("ApproverPolicyArn", approver.ManagedPolicyArn(), "Attach to an approver's role: the approval routes")
}

func withoutApprovalStatus(names []string) []string {
	var out []string
	for _, n := range names {
		if n != "file_context_approval_status" {
			out = append(out, n)
		}
	}
	return out
}

func ptrs(v []*string) *[]*string { return &v }

// bedrock adds an agent with the action groups the configuration names,
// each invoking its function, and an alias to call it by.
func (st *Stack) bedrock(cfg Config, catalog *Catalog) {
	account := st.Stack.Account()
	// The role can be assumed by Bedrock for this account's agents only (the
	// confused-deputy conditions of "Create a service role for Amazon Bedrock
	// Agents" in the Bedrock user guide).
	role := awsiam.NewRole(st.Stack, s("AgentRole"), &awsiam.RoleProps{
		AssumedBy: awsiam.NewServicePrincipal(s("bedrock.amazonaws.com"), &awsiam.ServicePrincipalOpts{
			Conditions: &map[string]any{
				"StringEquals": map[string]any{"aws:SourceAccount": account},
				"ArnLike":      map[string]any{"aws:SourceArn": awscdk.Fn_Sub(s("arn:${AWS::Partition}:bedrock:${AWS::Region}:${AWS::AccountId}:agent/*"), nil)},
			},
		}),
		Description: s("The FileContext Bedrock agent"),
	})
	role.AddToPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Actions:   &[]*string{s("bedrock:InvokeModel"), s("bedrock:InvokeModelWithResponseStream")},
		Resources: ptrs(modelResources(cfg.BedrockModel)),
	}))
	fns := map[string]awslambda.Function{"tools": st.Tools, "graph": st.Graph}
	var groups []interface{}
	used := map[string]bool{}
	for _, g := range catalog.ActionGroups(cfg.BedrockGroups) {
		used[g.Function] = true
		groups = append(groups, &awsbedrock.CfnAgent_AgentActionGroupProperty{
			ActionGroupName:     s(g.Name),
			Description:         s("FileContext " + g.Name + " tools: " + strings.Join(g.Tools, ", ")),
			ActionGroupExecutor: &awsbedrock.CfnAgent_ActionGroupExecutorProperty{Lambda: fns[g.Function].FunctionArn()},
			ApiSchema:           &awsbedrock.CfnAgent_APISchemaProperty{Payload: s(g.Schema)},
		})
	}
	agent := awsbedrock.NewCfnAgent(st.Stack, s("Agent"), &awsbedrock.CfnAgentProps{
		AgentName:               s(cfg.Name("agent")),
		AgentResourceRoleArn:    role.RoleArn(),
		FoundationModel:         s(cfg.BedrockModel),
		Instruction:             s(instruction(catalog)),
		ActionGroups:            &groups,
		AutoPrepare:             jsii.Bool(true),
		IdleSessionTtlInSeconds: jsii.Number(900),
	})
	names := []string{"tools", "graph"}
	sort.Strings(names)
	for _, n := range names {
		if !used[n] {
			continue
		}
		fns[n].AddPermission(s("BedrockInvoke"), &awslambda.Permission{
			Principal:     awsiam.NewServicePrincipal(s("bedrock.amazonaws.com"), nil),
			Action:        s("lambda:InvokeFunction"),
			SourceArn:     agent.AttrAgentArn(),
			SourceAccount: account,
		})
	}
	alias := awsbedrock.NewCfnAgentAlias(st.Stack, s("AgentAlias"), &awsbedrock.CfnAgentAliasProps{
		AgentId:        agent.AttrAgentId(),
		AgentAliasName: s(cfg.Env),
		Description:    s("FileContext agent (" + cfg.Env + ")"),
	})
	awscdk.NewCfnOutput(st.Stack, s("AgentId"), &awscdk.CfnOutputProps{Value: agent.AttrAgentId(), Description: s("The Bedrock agent")})
	awscdk.NewCfnOutput(st.Stack, s("AgentAliasId"), &awscdk.CfnOutputProps{Value: alias.AttrAgentAliasId(), Description: s("The alias to invoke the agent by")})
}

// modelResources are the ARNs the agent's role may invoke for a model id.
// An inference profile id (us., eu., apac., global. ... before the model id)
// needs the profile and the foundation model in every region it routes to
// ("Prerequisites for inference profiles", Bedrock user guide); a plain
// model id needs the foundation model in the stack's region.
func modelResources(model string) []*string {
	if prefix, base, ok := strings.Cut(model, "."); ok && isProfilePrefix(prefix) {
		return []*string{
			awscdk.Fn_Sub(s("arn:${AWS::Partition}:bedrock:${AWS::Region}:${AWS::AccountId}:inference-profile/"+model), nil),
			awscdk.Fn_Sub(s("arn:${AWS::Partition}:bedrock:*::foundation-model/"+base), nil),
		}
	}
	return []*string{awscdk.Fn_Sub(s("arn:${AWS::Partition}:bedrock:${AWS::Region}::foundation-model/"+model), nil)}
}

// isProfilePrefix tells the geography prefix of a cross-region inference
// profile id from a model provider's name.
func isProfilePrefix(p string) bool {
	switch p {
	case "us", "eu", "apac", "global", "us-gov", "ca", "jp", "au":
		return true
	}
	return false
}

// instruction is the agent's instruction: the catalog's capability text.
func instruction(c *Catalog) string {
	return "You help people with the documents in a shared file store. " + c.files.Instructions()
}

// notificationsHandlerLogs gives CDK's bucket-notifications handler (a
// function the stack does not otherwise manage) a log group with the stack's
// retention, instead of one Lambda creates on first run and keeps forever.
func (st *Stack) notificationsHandlerLogs(retention awslogs.RetentionDays, removal awscdk.RemovalPolicy) {
	for _, c := range *st.Stack.Node().FindAll(constructs.ConstructOrder_PREORDER) {
		path := *c.Node().Path()
		if !strings.Contains(path, "/BucketNotificationsHandler") || !strings.HasSuffix(path, "/Resource") || strings.Contains(path, "/Role/") {
			continue
		}
		fn, ok := c.(awscdk.CfnResource)
		if !ok || *fn.CfnResourceType() != "AWS::Lambda::Function" {
			continue
		}
		awslogs.NewLogGroup(st.Stack, s("BucketNotificationsHandlerLogs"), &awslogs.LogGroupProps{
			LogGroupName:  s("/aws/lambda/" + *fn.Ref()),
			Retention:     retention,
			RemovalPolicy: removal,
		})
	}
}

// narrowNotificationsPolicy scopes the policy of CDK's bucket-notifications
// handler, which asks for s3:PutBucketNotification on every resource, to the
// data bucket it configures.
func (st *Stack) narrowNotificationsPolicy() {
	for _, c := range *st.Stack.Node().FindAll(constructs.ConstructOrder_PREORDER) {
		path := *c.Node().Path()
		if !strings.Contains(path, "/BucketNotificationsHandler") || !strings.HasSuffix(path, "/Role/DefaultPolicy/Resource") {
			continue
		}
		c.(awscdk.CfnResource).AddPropertyOverride(s("PolicyDocument.Statement.0.Resource"), st.Data.BucketArn())
	}
}
