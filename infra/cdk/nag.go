package main

import (
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"
)

// suppress records why a cdk-nag rule does not apply to a construct (and
// its children). The tests run the AwsSolutions and Serverless packs and
// fail on any finding without such a reason.
func suppress(c constructs.IConstruct, reasons map[string]string) {
	var list []*cdknag.NagPackSuppression
	for id, reason := range reasons {
		list = append(list, &cdknag.NagPackSuppression{Id: s(id), Reason: s(reason)})
	}
	cdknag.NagSuppressions_AddResourceSuppressions(c, &list, jsii.Bool(true))
}

// accessLogs gives the data bucket S3 server access logs in prod, in a
// bucket of their own, kept a year.
func (st *Stack) accessLogs(cfg Config) {
	if !cfg.Prod() {
		suppress(st.Data, map[string]string{"AwsSolutions-S1": "dev and staging: server access logs are on in prod only, to save their cost; the functions log every call"})
		return
	}
	logs := awss3.NewBucket(st.Stack, s("DataAccessLogs"), &awss3.BucketProps{
		Encryption:        awss3.BucketEncryption_S3_MANAGED,
		BlockPublicAccess: awss3.BlockPublicAccess_BLOCK_ALL(),
		EnforceSSL:        jsii.Bool(true),
		RemovalPolicy:     awscdk.RemovalPolicy_RETAIN,
		ObjectOwnership:   awss3.ObjectOwnership_BUCKET_OWNER_ENFORCED,
		LifecycleRules:    &[]*awss3.LifecycleRule{{Id: s("expire"), Expiration: awscdk.Duration_Days(jsii.Number(365))}},
	})
	st.Data.Node().DefaultChild().(awss3.CfnBucket).SetLoggingConfiguration(&awss3.CfnBucket_LoggingConfigurationProperty{
		DestinationBucketName: logs.BucketName(), LogFilePrefix: s("data/"),
	})
	suppress(logs, map[string]string{"AwsSolutions-S1": "this bucket is the target of the data bucket's server access logs; logging it into itself would loop"})
}

// suppressFindings records, per construct, why a rule of the packs does
// not apply.
func (st *Stack) suppressFindings(cfg Config) {
	iamAuth := "every method is authorized with IAM (AWS_IAM, SigV4), the identity the approval rules rely on, not Cognito"
	suppress(st.Api, map[string]string{
		"AwsSolutions-COG4": iamAuth,
		"AwsSolutions-APIG2": "the functions validate every request body against the catalog's JSON Schemas (unknown arguments refused); " +
			"API Gateway models would repeat them and drift",
		"AwsSolutions-APIG3": "every method requires SigV4 and the stage is throttled (50 requests/s, bursts of 100); " +
			"attach an account's WAF web ACL to the stage where policy asks for one",
		"AwsSolutions-IAM4": "AmazonAPIGatewayPushToCloudWatchLogs is the policy AWS documents for API Gateway's account CloudWatch role",
	})
	if !cfg.Tracing {
		suppress(st.Api, map[string]string{"Serverless-APIGWXrayEnabled": "X-Ray tracing is an option (context tracing=true), off by default for its cost"})
	}
	basic := "AWSLambdaBasicExecutionRole allows only CloudWatch Logs writes, which every function needs"
	for _, fn := range []constructs.IConstruct{st.Tools, st.Approve, st.Graph} {
		r := map[string]string{
			"AwsSolutions-IAM4": basic,
			"AwsSolutions-IAM5": "object wildcards are the keys under one bucket or prefix (data objects, staged/*, snapshots/*) and the " +
				"approvals table's indexes; each action is named exactly (TestExactGrants)",
		}
		if !cfg.Tracing {
			r["Serverless-LambdaTracing"] = "X-Ray tracing is an option (context tracing=true), off by default for its cost"
		}
		if fn == st.Graph {
			r["Serverless-LambdaDLQ"] = "S3 invokes the graph function asynchronously with an on-failure destination (an SQS queue), which keeps more than a DLQ would"
		} else {
			r["Serverless-LambdaDLQ"] = "invoked synchronously by API Gateway and Bedrock only; the caller gets every failure"
		}
		suppress(fn, r)
	}
	suppress(st.GraphFailed, map[string]string{
		"AwsSolutions-SQS3":           "this queue is itself the failure destination of the graph function",
		"Serverless-SQSRedrivePolicy": "this queue is itself the failure destination of the graph function",
	})
	suppress(st.System, map[string]string{"AwsSolutions-S1": "holds only staged content and graph snapshots written by the functions, whose calls are logged"})
	if !cfg.Prod() {
		suppress(st.Table, map[string]string{"AwsSolutions-DDB3": "point-in-time recovery is on in prod; dev and staging approvals are disposable"})
	}
	for _, c := range *st.Stack.Node().FindAll(constructs.ConstructOrder_PREORDER) {
		path := *c.Node().Path()
		switch {
		case hasSegment(path, "BucketNotificationsHandler") && hasSegment(path, "Role"):
			suppress(c, map[string]string{"AwsSolutions-IAM4": "CDK's bucket-notifications handler; its inline policy is narrowed to the data bucket (narrowNotificationsPolicy)"})
		case hasSegment(path, "ApproverPolicy") || hasSegment(path, "AgentWriterPolicy") || hasSegment(path, "AgentReadOnlyPolicy"):
			suppress(c, map[string]string{"AwsSolutions-IAM5": "execute-api wildcards stand for the {approvalId} path parameter of the approval routes"})
		case hasSegment(path, "AgentRole"):
			suppress(c, map[string]string{"AwsSolutions-IAM5": "an inference profile routes to the model in several regions; the role may invoke that one model in each " +
				"(Prerequisites for inference profiles, Bedrock user guide)"})
		}
	}
}

func hasSegment(path, name string) bool {
	for _, seg := range strings.Split(path, "/") {
		if strings.HasPrefix(seg, name) {
			return true
		}
	}
	return false
}
