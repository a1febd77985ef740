package transport_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/filecontext-aws/filecontext/pkg/fileops/memstore"
	"github.com/filecontext-aws/filecontext/pkg/fileops/storetest"
	"github.com/filecontext-aws/filecontext/pkg/mdkb"
	"github.com/filecontext-aws/filecontext/pkg/pathsafe"
	"github.com/filecontext-aws/filecontext/pkg/toolapi"
	"github.com/filecontext-aws/filecontext/pkg/toolapi/graphtools"
	"github.com/filecontext-aws/filecontext/pkg/transport"
)

const e2ePrefix = "tenant-e2e-91c4/"

func TestEveryGraphEventFile(t *testing.T) {
	raw, err := os.ReadFile("../../events/graph/expected.json")
	if err != nil {
		t.Fatal(err)
	}
	var expected map[string]int
	json.Unmarshal(raw, &expected)
	for name, want := range expected {
		t.Run(name, func(t *testing.T) {
			data := memstore.New()
			storetest.LoadDir(t, data, e2ePrefix, filepath.Join("..", "..", "examples"))
			root, _ := pathsafe.NewRoot(e2ePrefix)
			g := mdkb.New(data, root, memstore.New(), mdkb.DefaultLimits())
			r := &transport.Router{Tools: toolapi.New(toolapi.Options{Extra: graphtools.Tools(g)})}
			event, _ := os.ReadFile(filepath.Join("../../events", name))
			out, err := transport.LambdaHandler(r, 20000, transport.S3EventHandler(g, nil))(context.Background(), event)
			if err != nil {
				t.Fatalf("function error: %v", err)
			}
			if strings.HasPrefix(filepath.Base(name), "s3-") {
				m := out.(map[string]any)
				wantN := 1
				if strings.Contains(name, "not-markdown") {
					wantN = 0
				}
				if m["refreshed"] != wantN {
					t.Errorf("refreshed = %v, want %d", m["refreshed"], wantN)
				}
				return
			}
			status, body := statusOf(t, out)
			if status != want {
				t.Fatalf("status %d, want %d: %s", status, want, body)
			}
			if strings.Contains(body, strings.TrimSuffix(e2ePrefix, "/")) {
				t.Errorf("the answer shows the root prefix: %s", body)
			}
		})
	}
}
