//go:build integration

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/filecontext-aws/filecontext/internal/testenv"
)

const prefix = "tenant-e2e-91c4/"

func TestToolsFunctionUnderRIE(t *testing.T) {
	target := testenv.Versitygw(t)
	bucket := testenv.NewBucket(t, target.Client)
	examples := filepath.Join("..", "..", "examples")
	testenv.UploadDir(t, target.Client, bucket, prefix, examples)
	env := testenv.LambdaEnv(t, bucket, prefix)
	env["FILECONTEXT_WRITE_TOOLS"], env["FILECONTEXT_APPROVAL"] = "enabled", "off"
	rie := testenv.StartRIE(t, testenv.BuildBootstrap(t, "."), env)

	raw, err := os.ReadFile("../../events/expected.json")
	if err != nil {
		t.Fatal(err)
	}
	var expected map[string]int
	json.Unmarshal(raw, &expected)
	for name, want := range expected {
		t.Run(name, func(t *testing.T) {
			testenv.ResetDir(t, target.Client, bucket, prefix, examples) // undo earlier writes
			event, err := os.ReadFile(filepath.Join("../../events", name))
			if err != nil {
				t.Fatal(err)
			}
			out, err := rie.Invoke(context.Background(), event)
			if err != nil {
				t.Fatal(err)
			}
			status, body := testenv.Answer(t, out)
			if status != want {
				t.Fatalf("status %d, want %d: %s", status, want, body)
			}
			for _, secret := range []string{bucket, strings.TrimSuffix(prefix, "/")} {
				if strings.Contains(string(out), secret) {
					t.Errorf("the answer shows %q: %s", secret, out)
				}
			}
		})
	}

	t.Run("generated events", func(t *testing.T) {
		testenv.UploadDir(t, target.Client, bucket, prefix, examples)
		for i, name := range []string{"README.md", "guides/approvals.md", "guides/architecture.md", "notes/todo.txt", "missing.txt"} {
			body, _ := json.Marshal(map[string]any{"fileName": name})
			event, _ := json.Marshal(map[string]any{
				"httpMethod": "POST", "path": "/tools/file_access_read", "resource": "/tools/file_access_read",
				"requestContext": map[string]any{"requestId": fmt.Sprintf("gen-%d", i), "identity": map[string]any{"userArn": "arn:aws:iam::123456789012:user/tester"}},
				"body":           string(body),
			})
			out, err := rie.Invoke(context.Background(), event)
			if err != nil {
				t.Fatal(err)
			}
			status, resp := testenv.Answer(t, out)
			want := 200
			if name == "missing.txt" {
				want = 404
			}
			if status != want {
				t.Errorf("%s: %d %s", name, status, resp)
			}
			if want == 200 {
				local, _ := os.ReadFile(filepath.Join(examples, name))
				var r struct{ Content string }
				json.Unmarshal([]byte(resp), &r)
				if r.Content != string(local) {
					t.Errorf("%s: content differs from the file", name)
				}
			}
		}
	})
	if d, ok := rie.InitDuration(); ok {
		t.Logf("init duration under the emulator: %v", d)
	}
}
