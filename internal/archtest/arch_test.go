// Package archtest enforces the dependency rules of the architecture: the
// domain packages import no AWS SDK and no Lambda runtime.
package archtest

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/filecontext-aws/filecontext"

// domain lists the packages that must stay free of AWS. Adapters
// (s3store, dirstore, ...) are deliberately not in it.
var domain = []string{
	module + "/pkg/fault",
	module + "/pkg/pathsafe",
	module + "/pkg/fileops",
	module + "/pkg/approval",
	module + "/pkg/mdkb",
	module + "/pkg/mdkb/kblimits",
	module + "/pkg/toolapi",
	module + "/pkg/toolapi/graphtools",
}

// TestTheToolsFunctionLinksNoGraphLibraries keeps goldmark and json-gold
// out of the tools function, which serves no graph.
func TestTheToolsFunctionLinksNoGraphLibraries(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", module+"/functions/tools").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.Contains(dep, "goldmark") || strings.Contains(dep, "json-gold") {
			t.Errorf("the tools function links %s", dep)
		}
	}
}

var forbidden = []string{"github.com/aws/", "github.com/aws/aws-lambda-go"}

func TestDomainPackagesImportNoAWS(t *testing.T) {
	for _, pkg := range domain {
		out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		deps := strings.Fields(string(out))
		if len(deps) < 1 || deps[len(deps)-1] != pkg {
			t.Fatalf("go list -deps %s listed nothing", pkg)
		}
		for _, dep := range deps {
			for _, f := range forbidden {
				if strings.HasPrefix(dep, f) {
					t.Errorf("%s depends on %s", pkg, dep)
				}
			}
		}
	}
}

// TestTheCheckSeesAdapters proves the check can fail: the S3 adapter does
// import the SDK, and the same scan finds it.
func TestTheCheckSeesAdapters(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", module+"/pkg/fileops/s3store").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "github.com/aws/aws-sdk-go-v2/service/s3") {
		t.Error("the scan does not see the SDK in the S3 adapter")
	}
}
