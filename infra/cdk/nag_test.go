package main

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/aws-cdk-go/awscdk/v2/cxapi"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"
)

// nagFindings synthesizes a stack with cdk-nag's AwsSolutions and
// Serverless packs and returns every unsuppressed finding, errors and
// warnings alike, as "rule path".
func nagFindings(t *testing.T, ctx map[string]any) []string {
	t.Helper()
	app, st := newStack(t, ctx)
	awscdk.Aspects_Of(app).Add(cdknag.NewAwsSolutionsChecks(&cdknag.NagPackProps{Verbose: jsiiBool(true)}), nil)
	awscdk.Aspects_Of(app).Add(cdknag.NewServerlessChecks(&cdknag.NagPackProps{Verbose: jsiiBool(true)}), nil)
	annotations := assertions.Annotations_FromStack(st.Stack)
	var out []string
	//lint:ignore SA1019 Annotations.FindError and FindWarning return only this type in aws-cdk-go v2.277.0
	for _, msgs := range [][]*cxapi.SynthesisMessage{
		*annotations.FindError(s("*"), assertions.Match_StringLikeRegexp(s(".*"))),
		*annotations.FindWarning(s("*"), assertions.Match_StringLikeRegexp(s(".*"))),
	} {
		for _, m := range msgs {
			//lint:ignore SA1019 see above
			text := fmt.Sprint(m.Entry.Data)
			rule, _, _ := strings.Cut(text, ":")
			//lint:ignore SA1019 see above
			out = append(out, rule+" "+*m.Id)
		}
	}
	sort.Strings(out)
	return out
}

func jsiiBool(b bool) *bool { return &b }

// Every finding of cdk-nag's AwsSolutions and Serverless packs is fixed or
// suppressed in the stack with a written reason.
func TestCdkNagHasNoUnsuppressedFindings(t *testing.T) {
	for _, ctx := range []map[string]any{{"env": "dev"}, {"env": "prod", "bedrock": "true"}, {"env": "staging", "tracing": "true", "approval": "off"}} {
		if f := nagFindings(t, ctx); len(f) > 0 {
			t.Errorf("%v: %d findings:\n  %s", ctx, len(f), strings.Join(f, "\n  "))
		}
	}
}
