package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docStep is one "$ command" line of a shell block and the output the docs
// show after it.
type docStep struct {
	command, output string
	line            int
}

// docBlocks returns the shell blocks of a Markdown file that show commands
// with a "$ " prompt.
func docBlocks(t *testing.T, path string) [][]docStep {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks [][]docStep
	var cur []docStep
	in := false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "```") && !in:
			in, cur = true, nil
		case strings.HasPrefix(line, "```") && in:
			in = false
			if len(cur) > 0 {
				blocks = append(blocks, cur)
			}
		case in && strings.HasPrefix(line, "$ "):
			cur = append(cur, docStep{command: strings.TrimPrefix(line, "$ "), line: n})
		case in && len(cur) > 0:
			cur[len(cur)-1].output += line + "\n"
		}
	}
	return blocks
}

// The values that differ from run to run are masked before comparing.
var docMasks = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`apr_[a-z0-9]{20}`), "apr_ID"},
	{regexp.MustCompile(`\\"[0-9a-f]{16,64}\\"`), `\"ETAG\"`},
	{regexp.MustCompile(`"cursor": ?"[A-Za-z0-9_-]+"`), `"cursor":"CURSOR"`},
	{regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`), "TIME"},
}

func maskDoc(s string) string {
	for _, m := range docMasks {
		s = m.re.ReplaceAllString(s, m.with)
	}
	return strings.TrimSpace(s)
}

// matchesDoc compares an output with the docs' one: equal after masking,
// where "..." in the docs stands for anything.
func matchesDoc(shown, got string) bool {
	shown, got = maskDoc(shown), maskDoc(got)
	if !strings.Contains(shown, "...") {
		return shown == got
	}
	parts := strings.Split(shown, "...")
	for i := range parts {
		parts[i] = regexp.QuoteMeta(parts[i])
	}
	return regexp.MustCompile(`(?s)\A` + strings.Join(parts, ".*?") + `\z`).MatchString(got)
}

var aprID = regexp.MustCompile(`apr_[a-z0-9]{20}`)

// TestEveryPromptedCommandOfTheDocs runs every "$ " line of the README and
// docs/ against a local server on a copy of examples/ (one per block; a
// block whose first line starts a server with flags gets those flags) and
// compares what it prints with what the docs show.
func TestEveryPromptedCommandOfTheDocs(t *testing.T) {
	bin := buildCLI(t)
	docs, _ := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	docs = append([]string{filepath.Join("..", "..", "README.md")}, docs...)
	ran := 0
	for _, doc := range docs {
		for _, block := range docBlocks(t, doc) {
			root := t.TempDir()
			copyExamples(t, root)
			flags := []string{"--root", root}
			if strings.Contains(block[0].command, " serve ") && strings.HasSuffix(strings.TrimSpace(block[0].command), "&") {
				f := strings.Fields(strings.TrimSuffix(strings.TrimSpace(block[0].command), "&"))
				for i, w := range f {
					if w == "serve" {
						f = f[i+1:]
						break
					}
				}
				for i := range f {
					if f[i] == "examples" {
						f[i] = root
					}
				}
				flags, block = f, block[1:]
			}
			url, _ := startServer(t, bin, flags...)
			ids := map[string]string{} // approval IDs shown in the docs -> the real ones
			for _, step := range block {
				cmd := strings.ReplaceAll(step.command, "go run ./cmd/filecontext", bin)
				cmd = strings.ReplaceAll(cmd, "http://127.0.0.1:8080", url)
				for shown, real := range ids {
					cmd = strings.ReplaceAll(cmd, shown, real)
				}
				c := exec.Command("sh", "-c", cmd)
				c.Env = append(os.Environ(), "FILECONTEXT_ENDPOINT="+url)
				out, err := c.Output()
				ran++
				if err != nil {
					t.Errorf("%s:%d: %s: %v\n%s", filepath.Base(doc), step.line, step.command, err, out)
					continue
				}
				if step.output != "" && !matchesDoc(step.output, string(out)) {
					t.Errorf("%s:%d: %s printed\n%s\nwhere the docs show\n%s", filepath.Base(doc), step.line, step.command, out, step.output)
				}
				shownIDs, realIDs := aprID.FindAllString(step.output, -1), aprID.FindAllString(string(out), -1)
				for i := 0; i < len(shownIDs) && i < len(realIDs); i++ {
					if _, ok := ids[shownIDs[i]]; !ok {
						ids[shownIDs[i]] = realIDs[i]
					}
				}
			}
		}
	}
	if ran < 8 {
		t.Errorf("only %d commands ran: the scan is not finding the docs' commands", ran)
	}
}

// unpromptedRules says, for every command the docs show without a "$ "
// prompt, how it is checked: run here, or why it cannot be (an AWS account,
// a third-party client) and which test covers what it does. A command that
// matches no rule fails the test, so a new command in the docs gets a rule.
var unpromptedRules = []struct {
	prefix string
	how    string // "run" or the reason it is not run here
}{
	{"go run ./cmd/filecontext serve --root examples", "run"},
	{"scripts/test", "it is the test command that runs this test (.ci/run runs it)"},
	{"make synth ENV=", "scripts/test runs scripts/synth.sh (what make synth runs) for dev, staging and prod"},
	{"make bootstrap", "needs an AWS account; the CDK tests and cfn-lint check what it deploys"},
	{"make deploy", "needs an AWS account; the CDK tests, cdk-nag and cfn-lint check what it deploys"},
	{"make diff", "needs an AWS account"},
	{"make destroy", "needs an AWS account; TestProdLifecycle checks what a delete keeps"},
	{"aws iam attach-role-policy", "needs an AWS account; the CDK tests list the managed policies' routes"},
	{"filecontext call file_access_read fileName=notes/todo.txt --endpoint <ApiUrl> --sigv4", "needs a deployed API; TestCommandLines runs --sigv4 against the local server, pkg/client checks the signature against botocore"},
	{"curl --aws-sigv4", "needs a deployed API and AWS credentials"},
	{"filecontext approvals list --endpoint <ApiUrl>", "needs a deployed API; the approvals CLI runs against the local server in TestCommandLines and the README's walk-through"},
	{"AWS_PROFILE=approver filecontext console --endpoint <ApiUrl> --sigv4", "needs a deployed API and a browser; TestConsoleCommand runs `filecontext console --endpoint --sigv4` against the local server and approves through it, TestApprovalConsoleInChromium drives the page in Chromium"},
	{"claude mcp add", "needs Claude Code; the MCP Inspector and a TypeScript SDK client run the same `filecontext mcp` commands in the integration tests"},
	{"OPENAI_API_KEY=... go run ./cmd/filecontext agent", "needs a model; internal/agenttest runs `filecontext agent` against a scripted OpenAI-compatible model server"},
	{"OPENAI_BASE_URL=http://127.0.0.1:11434/v1", "needs a model server; internal/agenttest runs `filecontext agent --model-endpoint` against a scripted one"},
}

// TestEveryOtherCommandOfTheDocsHasARule runs the shell commands the docs
// show without a prompt where they can run here, and checks that every other
// one is named with the reason it cannot.
func TestEveryOtherCommandOfTheDocsHasARule(t *testing.T) {
	bin := buildCLI(t)
	docs, _ := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	docs = append([]string{filepath.Join("..", "..", "README.md")}, docs...)
	used := map[string]bool{}
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		in, shell := false, false
		var cmd strings.Builder
		for n, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "```") {
				in, shell = !in, !in && (strings.TrimPrefix(line, "```") == "sh" || strings.TrimPrefix(line, "```") == "bash")
				continue
			}
			if !in || !shell || strings.HasPrefix(line, "$ ") || strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
				if in && shell && strings.HasPrefix(line, "$ ") {
					shell = false // a block with prompts: TestEveryPromptedCommandOfTheDocs runs it
				}
				continue
			}
			cmd.WriteString(strings.TrimSuffix(line, "\\"))
			if strings.HasSuffix(line, "\\") {
				continue
			}
			command := strings.TrimSpace(cmd.String())
			cmd.Reset()
			matched := false
			for _, r := range unpromptedRules {
				if !strings.HasPrefix(command, r.prefix) {
					continue
				}
				matched, used[r.prefix] = true, true
				if r.how == "run" {
					runDocCommand(t, bin, command)
				}
				break
			}
			if !matched {
				t.Errorf("%s:%d: %q has no rule in unpromptedRules: run it here, or say why it cannot be", filepath.Base(doc), n+1, command)
			}
		}
	}
	for _, r := range unpromptedRules {
		if !used[r.prefix] {
			t.Errorf("the rule %q matches no command of the docs any more", r.prefix)
		}
	}
}

// runDocCommand runs the README's first command: the local server on
// examples/, on a free port, and checks that it serves.
func runDocCommand(t *testing.T, bin, command string) {
	t.Helper()
	args := strings.Fields(strings.TrimPrefix(command, "go run ./cmd/filecontext serve"))
	for i := range args {
		if args[i] == "examples" {
			args[i] = filepath.Join("..", "..", "examples")
		}
	}
	url, _ := startServer(t, bin, args...)
	out, err := exec.Command(bin, "call", "file_access_read", "fileName=notes/todo.txt", "--endpoint", url).Output()
	if err != nil || !strings.Contains(string(out), "alpha: read the contract") {
		t.Errorf("%s: %v\n%s", command, err, out)
	}
}
