//go:build integration

package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/filecontext-aws/filecontext/internal/testenv"
)

const prefix = "tenant-e2e-91c4/"

func TestGraphFunctionUnderRIE(t *testing.T) {
	target := testenv.Versitygw(t)
	bucket, system := testenv.NewBucket(t, target.Client), testenv.NewBucket(t, target.Client)
	examples := filepath.Join("..", "..", "examples")
	testenv.UploadDir(t, target.Client, bucket, prefix, examples)
	env := testenv.LambdaEnv(t, bucket, prefix)
	env["FILECONTEXT_SYSTEM_BUCKET"] = system
	rie := testenv.StartRIE(t, testenv.BuildBootstrap(t, "."), env)
	ctx := context.Background()

	raw, _ := os.ReadFile("../../events/graph/expected.json")
	var expected map[string]int
	json.Unmarshal(raw, &expected)
	for name, want := range expected {
		t.Run(name, func(t *testing.T) {
			event, _ := os.ReadFile(filepath.Join("../../events", name))
			out, err := rie.Invoke(ctx, event)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(out), bucket) || strings.Contains(string(out), strings.TrimSuffix(prefix, "/")) {
				t.Errorf("the answer shows the bucket or prefix: %s", out)
			}
			if strings.Contains(name, "/s3-") {
				if !strings.Contains(string(out), `"refreshed"`) {
					t.Errorf("S3 event answered %s", out)
				}
				return
			}
			status, _ := testenv.Answer(t, out)
			if status != want {
				t.Errorf("status %d, want %d: %s", status, want, out)
			}
		})
	}

	t.Run("an event-built snapshot is reused, a changed file is fetched alone", func(t *testing.T) {
		_, err := target.Client.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: aws.String(prefix + "guides/new.md"),
			Body: strings.NewReader("---\ntitle: Freshly Added\n---\n# New\n")})
		if err != nil {
			t.Fatal(err)
		}
		created, _ := os.ReadFile("../../events/graph/s3-object-created.json")
		event := strings.Replace(string(created), prefix+"README.md", prefix+"guides/new.md", 1)
		if _, err := rie.Invoke(ctx, []byte(event)); err != nil {
			t.Fatal(err)
		}
		search := testenv.APIGatewayEvent("POST", "/tools/file_context_markdown_graph_search", `{"query":"freshly added"}`, "arn:aws:iam::1:user/a", nil)
		out, err := rie.Invoke(ctx, search)
		if err != nil {
			t.Fatal(err)
		}
		status, m := testenv.GatewayAnswer(t, out)
		snap := m["snapshot"].(map[string]any)
		matches := m["matches"].([]any)
		if status != 200 || snap["reused"] != true || len(matches) == 0 || matches[0].(map[string]any)["path"] != "guides/new.md" {
			t.Errorf("search after the event = %d %v", status, m)
		}
		page, err := target.Client.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &system})
		if err != nil || len(page.Contents) == 0 {
			t.Errorf("no snapshot in the system bucket: %v", err)
		}
		listed, _ := target.Client.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &bucket, Prefix: aws.String(prefix + "snapshots")})
		if len(listed.Contents) != 0 {
			t.Error("a snapshot was written to the data bucket")
		}
	})
}
