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
