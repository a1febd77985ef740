//go:build integration

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/filecontext-aws/filecontext/internal/testenv"
	"github.com/filecontext-aws/filecontext/pkg/approval/dynamostore"
)

const (
	agentArn    = "arn:aws:sts::123456789012:assumed-role/filecontext-agent/s1"
	approverArn = "arn:aws:sts::123456789012:assumed-role/filecontext-approver/s2"
	prefix      = "team-a/"
)

type stack struct {
	t              *testing.T
	s3             *s3.Client
	bucket, system string
	env            map[string]string
	approveBin     string
	tools, approve *testenv.RIE
}

// newStack runs the tools and approve functions under aws-lambda-rie, with
// the data and system buckets in versitygw and the approvals table in moto.
func newStack(t *testing.T, toolsEnv map[string]string) *stack {
	s3t := testenv.Versitygw(t)
	moto := testenv.DynamoTargets(t)[0]
	table := testenv.TableName()
	if err := dynamostore.CreateTable(context.Background(), moto.Client, table); err != nil {
		t.Fatal(err)
	}
	st := &stack{t: t, s3: s3t.Client, bucket: testenv.NewBucket(t, s3t.Client), system: testenv.NewBucket(t, s3t.Client)}
	st.env = testenv.LambdaEnv(t, st.bucket, prefix)
	st.env["FILECONTEXT_SYSTEM_BUCKET"] = st.system
	st.env["FILECONTEXT_APPROVALS_TABLE"] = table
	st.env["AWS_ENDPOINT_URL_DYNAMODB"] = os.Getenv("FILECONTEXT_TEST_MOTO_URL")
	st.env["FILECONTEXT_APPROVAL_LEASE"] = "1s"
	te := maps.Clone(st.env)
	te["FILECONTEXT_WRITE_TOOLS"] = "enabled"
	maps.Copy(te, toolsEnv)
	st.tools = testenv.StartRIE(t, testenv.BuildBootstrap(t, "../tools"), te)
	st.approveBin = testenv.BuildBootstrap(t, ".")
	st.approve = testenv.StartRIE(t, st.approveBin, st.env)
	return st
}

func (st *stack) call(rie *testenv.RIE, method, path, body, caller string, query map[string]string) (int, map[string]any) {
	st.t.Helper()
	out, err := rie.Invoke(context.Background(), testenv.APIGatewayEvent(method, path, body, caller, query))
	if err != nil {
		st.t.Fatal(err)
	}
	return testenv.GatewayAnswer(st.t, out)
}

func (st *stack) put(name, content string) {
	st.t.Helper()
	if _, err := st.s3.PutObject(context.Background(), &s3.PutObjectInput{Bucket: &st.bucket, Key: aws.String(prefix + name), Body: strings.NewReader(content)}); err != nil {
		st.t.Fatal(err)
	}
}

func (st *stack) content(name string) string {
	out, err := st.s3.GetObject(context.Background(), &s3.GetObjectInput{Bucket: &st.bucket, Key: aws.String(prefix + name)})
	if err != nil {
		return "<missing>"
	}
	defer out.Body.Close()
	b, _ := io.ReadAll(out.Body)
	return string(b)
}

func (st *stack) park(tool, args string) string {
	st.t.Helper()
	status, m := st.call(st.tools, "POST", "/tools/"+tool, args, agentArn, nil)
	if status != 202 || m["status"] != "pending_approval" {
		st.t.Fatalf("park %s = %d %v", tool, status, m)
	}
	return m["approvalId"].(string)
}

func TestApprovalFlowsUnderRIE(t *testing.T) {
	st := newStack(t, nil)

	t.Run("park, list, approve", func(t *testing.T) {
		st.put("plan.md", "draft\n")
		id := st.park("file_access_replace", `{"fileName":"plan.md","oldString":"draft","newString":"final"}`)
		status, m := st.call(st.approve, "GET", "/approvals", "", approverArn, map[string]string{"status": "pending"})
		if status != 200 || !strings.Contains(mustJSON(m), id) {
			t.Fatalf("list = %d %v", status, m)
		}
		if st.content("plan.md") != "draft\n" {
			t.Fatal("changed before approval")
		}
		status, m = st.call(st.approve, "POST", "/approvals/"+id+"/approve", "", approverArn, nil)
		if status != 200 || m["status"] != "applied" || m["decidedBy"] != approverArn || m["requestedBy"] != agentArn {
			t.Fatalf("approve = %d %v", status, m)
		}
		if st.content("plan.md") != "final\n" {
			t.Errorf("file = %q", st.content("plan.md"))
		}
		if status, m := st.call(st.tools, "POST", "/tools/file_context_approval_status", `{"approvalId":"`+id+`"}`, agentArn, nil); status != 200 || m["status"] != "applied" {
			t.Errorf("status tool = %d %v", status, m)
		}
		if strings.Contains(mustJSON(m), st.bucket) || strings.Contains(mustJSON(m), "team-a") {
			t.Errorf("an answer shows the bucket or prefix: %v", m)
		}
	})

	t.Run("park, reject", func(t *testing.T) {
		st.put("keep.md", "keep\n")
		id := st.park("file_access_delete", `{"fileName":"keep.md"}`)
		status, m := st.call(st.approve, "POST", "/approvals/"+id+"/reject", `{"reason":"still needed"}`, approverArn, nil)
		if status != 200 || m["status"] != "rejected" || st.content("keep.md") != "keep\n" {
			t.Errorf("reject = %d %v, file %q", status, m, st.content("keep.md"))
		}
	})

	t.Run("park, someone else edits, approve is a conflict", func(t *testing.T) {
		st.put("race.md", "base\n")
		id := st.park("file_access_write", `{"fileName":"race.md","content":"mine\n","overwrite":true}`)
		st.put("race.md", "theirs\n")
		status, m := st.call(st.approve, "POST", "/approvals/"+id+"/approve", "", approverArn, nil)
		e, _ := m["error"].(map[string]any)
		d, _ := e["details"].(map[string]any)
		rec, _ := d["approval"].(map[string]any)
		if status != 409 || errCode(m) != "conflict" || rec["status"] != "conflict" || st.content("race.md") != "theirs\n" {
			t.Errorf("approve = %d %v, file %q", status, m, st.content("race.md"))
		}
	})

	t.Run("self-approval is forbidden", func(t *testing.T) {
		st.put("self.md", "x")
		id := st.park("file_access_delete", `{"fileName":"self.md"}`)
		if status, m := st.call(st.approve, "POST", "/approvals/"+id+"/approve", "", agentArn, nil); status != 403 || errCode(m) != "forbidden" {
			t.Errorf("self-approve = %d %v", status, m)
		}
	})

	t.Run("bad input", func(t *testing.T) {
		for _, tc := range []struct {
			method, path, body string
			status             int
		}{
			{"POST", "/approvals/apr_unknown/approve", "", 404},
			{"GET", "/approvals/apr_unknown", "", 404},
			{"POST", "/approvals/apr_unknown/approve", `{"approver":"x"}`, 400},
			{"GET", "/tools", "", 404},
		} {
			if status, m := st.call(st.approve, tc.method, tc.path, tc.body, approverArn, nil); status != tc.status {
				t.Errorf("%s %s = %d %v", tc.method, tc.path, status, m)
			}
		}
	})

	t.Run("an approve killed after the write is finished by the next", func(t *testing.T) {
		st.put("crash.md", "before\n")
		big := strings.Repeat("staged content line\n", 500)
		id := st.park("file_access_write", `{"fileName":"crash.md","overwrite":true,"content":"`+strings.ReplaceAll(big, "\n", `\n`)+`"}`)
		crashEnv := maps.Clone(st.env)
		crashEnv["FILECONTEXT_TEST_CRASH_AFTER_WRITE"] = "1"
		crashing := testenv.StartRIE(t, st.approveBin, crashEnv)
		_, err := crashing.Invoke(context.Background(), testenv.APIGatewayEvent("POST", "/approvals/"+id+"/approve", "", approverArn, nil))
		if err == nil && !strings.Contains(crashing.Logs(), "exiting after the write") {
			t.Fatalf("the approve did not crash: %s", crashing.Logs())
		}
		if st.content("crash.md") != big {
			t.Fatal("the write did not happen before the crash")
		}
		_, m := st.call(st.approve, "GET", "/approvals/"+id, "", approverArn, nil)
		if m["status"] != "approving" {
			t.Fatalf("after the crash the record is %v", m["status"])
		}
		time.Sleep(1100 * time.Millisecond) // the claim's lease
		status, m := st.call(st.approve, "POST", "/approvals/"+id+"/approve", "", approverArn, nil)
		if status != 200 || m["status"] != "applied" || st.content("crash.md") != big {
			t.Errorf("recovery = %d %v", status, m)
		}
	})
}

func TestExpiryUnderRIE(t *testing.T) {
	st := newStack(t, map[string]string{"FILECONTEXT_APPROVAL_TTL": "1s"})
	st.put("late.md", "x")
	id := st.park("file_access_delete", `{"fileName":"late.md"}`)
	time.Sleep(1100 * time.Millisecond)
	status, m := st.call(st.approve, "POST", "/approvals/"+id+"/approve", "", approverArn, nil)
	if status != 409 || !strings.Contains(mustJSON(m), "expired") || st.content("late.md") != "x" {
		t.Errorf("approve after expiry = %d %v", status, m)
	}
	// The scheduled sweep expires what nobody touches again.
	st.put("later.md", "y")
	id = st.park("file_access_delete", `{"fileName":"later.md"}`)
	time.Sleep(1100 * time.Millisecond)
	out, err := st.approve.Invoke(context.Background(), []byte(`{"version":"0","id":"e-1","detail-type":"Scheduled Event","source":"aws.events",`+
		`"account":"123456789012","time":"2026-11-30T10:15:00Z","region":"us-east-1","resources":["arn:aws:events:us-east-1:123456789012:rule/sweep"],"detail":{}}`))
	if err != nil || !strings.Contains(string(out), `"expired":1`) {
		t.Errorf("the scheduled sweep answered %s %v", out, err)
	}
	status, m = st.call(st.approve, "GET", "/approvals/"+id, "", approverArn, nil)
	if status != 200 || m["status"] != "expired" {
		t.Errorf("after the sweep = %d %v", status, m)
	}
}

func mustJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return b.String()
}

func errCode(m map[string]any) string {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}
