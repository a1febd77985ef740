package main

import (
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
)

// Grants name the exact actions the code calls (s3store: GetObject,
// HeadObject (s3:GetObject), ListObjectsV2 and HeadBucket (s3:ListBucket),
// PutObject, DeleteObject; dynamostore: PutItem, GetItem, Query), never the
// wildcards of the grant* helpers (s3:DeleteObject* would include
// DeleteObjectVersion, which cannot be undone). TestExactGrants lists them
// per role, so any widening shows in review.
type grant struct {
	actions   []string
	resources []*string
}

func (st *Stack) allow(fn awslambda.Function, grants ...grant) {
	for _, g := range grants {
		actions := make([]*string, len(g.actions))
		for i, a := range g.actions {
			actions[i] = s(a)
		}
		fn.AddToRolePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{Actions: &actions, Resources: &g.resources}))
	}
}

// grantExactly gives each function what it calls, on what it calls it.
// The tools function reads the data bucket, records approvals and stages
// proposed content; it writes the data bucket only where approval is off.
// Only the approve function writes the data bucket otherwise. The graph
// function reads the data bucket and keeps snapshots in the system bucket.
func (st *Stack) grantExactly(cfg Config) {
	data, system := st.Data.BucketArn(), st.System.BucketArn()
	dataObjects := st.Data.ArnForObjects(s("*"))
	staged, snapshots := st.System.ArnForObjects(s("staged/*")), st.System.ArnForObjects(s("snapshots/*"))
	table, index := st.Table.TableArn(), s(*st.Table.TableArn()+"/index/*")

	st.allow(st.Tools,
		grant{[]string{"s3:GetObject"}, []*string{dataObjects}},
		grant{[]string{"s3:ListBucket"}, []*string{data, system}},
		grant{[]string{"s3:PutObject", "s3:DeleteObject"}, []*string{staged}},
		grant{[]string{"dynamodb:PutItem", "dynamodb:GetItem"}, []*string{table}},
	)
	if cfg.ApprovalOff {
		st.allow(st.Tools, grant{[]string{"s3:PutObject", "s3:DeleteObject"}, []*string{dataObjects}})
	}
	st.allow(st.Approve,
		grant{[]string{"s3:GetObject", "s3:PutObject", "s3:DeleteObject"}, []*string{dataObjects}},
		grant{[]string{"s3:ListBucket"}, []*string{data, system}},
		grant{[]string{"s3:GetObject", "s3:DeleteObject"}, []*string{staged}},
		grant{[]string{"dynamodb:PutItem", "dynamodb:GetItem", "dynamodb:Query"}, []*string{table, index}},
	)
	st.allow(st.Graph,
		grant{[]string{"s3:GetObject"}, []*string{dataObjects}},
		grant{[]string{"s3:ListBucket"}, []*string{data, system}},
		grant{[]string{"s3:GetObject", "s3:PutObject"}, []*string{snapshots}},
	)
}
