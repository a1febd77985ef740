package main

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsevents"
	"github.com/aws/aws-cdk-go/awscdk/v2/awseventstargets"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssnssubscriptions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/jsii-runtime-go"
)

// notifications tells people of changes that wait: the tools and approve
// functions publish every approval transition to the default event bus
// (source "filecontext"); a rule sends "Approval Requested" to an SNS topic,
// with an e-mail subscription when approvalEmail is given; a rule every 15
// minutes has the approve function expire and announce the requests nobody
// decided.
func (st *Stack) notifications(cfg Config, removal awscdk.RemovalPolicy) {
	bus := awsevents.EventBus_FromEventBusName(st.Stack, s("DefaultBus"), s("default"))
	for _, fn := range []interface{ AddToRolePolicy(awsiam.PolicyStatement) }{st.Tools, st.Approve} {
		fn.AddToRolePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Actions:   &[]*string{s("events:PutEvents")},
			Resources: &[]*string{bus.EventBusArn()},
		}))
	}
	topic := awssns.NewTopic(st.Stack, s("ApprovalRequests"), &awssns.TopicProps{
		DisplayName: s("FileContext approvals (" + cfg.Env + ")"),
		EnforceSSL:  jsii.Bool(true),
		MasterKey:   awskms.Alias_FromAliasName(st.Stack, s("SnsKey"), s("alias/aws/sns")),
	})
	topic.ApplyRemovalPolicy(removal)
	// Events a rule could not deliver wait here (14 days).
	undelivered := awssqs.NewQueue(st.Stack, s("ApprovalNotificationFailures"), &awssqs.QueueProps{
		RetentionPeriod: awscdk.Duration_Days(jsii.Number(14)),
		EnforceSSL:      jsii.Bool(true),
		Encryption:      awssqs.QueueEncryption_SQS_MANAGED,
		RemovalPolicy:   removal,
	})
	suppress(undelivered, map[string]string{
		"AwsSolutions-SQS3":           "this queue is itself the dead-letter queue of the approval rules",
		"Serverless-SQSRedrivePolicy": "this queue is itself the dead-letter queue of the approval rules",
	})
	if cfg.ApprovalEmail != "" {
		topic.AddSubscription(awssnssubscriptions.NewEmailSubscription(s(cfg.ApprovalEmail), nil))
	}
	awsevents.NewRule(st.Stack, s("ApprovalRequestedRule"), &awsevents.RuleProps{
		Description:  s("FileContext: a change waits for an approver"),
		EventPattern: &awsevents.EventPattern{Source: &[]*string{s("filecontext")}, DetailType: &[]*string{s("Approval Requested")}},
		Targets:      &[]awsevents.IRuleTarget{awseventstargets.NewSnsTopic(topic, &awseventstargets.SnsTopicProps{DeadLetterQueue: undelivered})},
	})
	awsevents.NewRule(st.Stack, s("ApprovalSweepSchedule"), &awsevents.RuleProps{
		Description: s("FileContext: expire and announce approval requests nobody decided"),
		Schedule:    awsevents.Schedule_Rate(awscdk.Duration_Minutes(jsii.Number(15))),
		Targets: &[]awsevents.IRuleTarget{awseventstargets.NewLambdaFunction(st.Approve, &awseventstargets.LambdaFunctionProps{
			DeadLetterQueue: undelivered, RetryAttempts: jsii.Number(2),
		})},
	})
	awscdk.NewCfnOutput(st.Stack, s("ApprovalTopicArn"), &awscdk.CfnOutputProps{Value: topic.TopicArn(),
		Description: s("SNS topic told of every approval request; subscribe an address or a chat hook")})
}
