// Package bench holds the benchmarks of the performance targets and the
// generators of their inputs. The inputs are deterministic and cached
// outside the repository ($FILECONTEXT_CACHE/bench), built once.
package bench

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// CacheDir returns the folder benchmark inputs are kept in.
func CacheDir() string {
	if d := os.Getenv("FILECONTEXT_CACHE"); d != "" {
		return filepath.Join(d, "bench")
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "filecontext", "bench")
	}
	return filepath.Join(os.TempDir(), "filecontext-bench")
}

var words = strings.Fields(`the of and to in is was for on that with as by at from this be or are an it not
which have has had were their been but its they also more one all would there can into other
request response handler service client server config storage object bucket window cursor line
value error warning notice debug timeout retry session token record approval graph document
parse render export search index query result status field limit budget stream reader writer
alpha beta gamma delta epsilon zeta theta lambda sigma omega kernel module package function`)

// Corpus describes the grep corpus: Files files of about FileBytes bytes in
// Dirs directories, text lines of words. A few lines in each file carry the
// tokens the benchmark patterns look for.
type Corpus struct {
	Files, Dirs, FileBytes int
}

// DefaultCorpus is about 200 MiB in 2,000 files.
var DefaultCorpus = Corpus{Files: 2000, Dirs: 40, FileBytes: 100 << 10}

// Dir returns the corpus directory, generating it on first use.
func (c Corpus) Dir() (string, error) {
	dir := filepath.Join(CacheDir(), fmt.Sprintf("corpus-%d-%d-%d", c.Files, c.Dirs, c.FileBytes))
	if _, err := os.Stat(filepath.Join(dir, ".complete")); err == nil {
		return dir, nil
	}
	os.RemoveAll(dir)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range c.Files {
		d := filepath.Join(dir, fmt.Sprintf("dir%02d", i%c.Dirs))
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", err
		}
		if err := c.writeFile(filepath.Join(d, fmt.Sprintf("file%04d.txt", i)), rng); err != nil {
			return "", err
		}
	}
	return dir, os.WriteFile(filepath.Join(dir, ".complete"), nil, 0o644)
}

func (c Corpus) writeFile(path string, rng *rand.Rand) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	n := 0
	for line := 0; n < c.FileBytes; line++ {
		var b strings.Builder
		for b.Len() < 60+rng.IntN(40) {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteByte(' ')
		}
		switch rng.IntN(400) {
		case 0:
			b.WriteString("TimeoutException raised by the storage client ")
		case 1:
			b.WriteString("WARNING: disk nearly full ")
		case 2:
			b.WriteString("Error: request refused ")
		}
		b.WriteByte('\n')
		k, _ := w.WriteString(b.String())
		n += k
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// LinedObject is a file of about 1 GiB of numbered lines, so that line
// 5,000,000 exists and lies deep in it.
type LinedObject struct{ Lines, Width int }

// DefaultLinedObject is 5,200,000 lines of 206 bytes: 1.0 GiB.
var DefaultLinedObject = LinedObject{Lines: 5_200_000, Width: 206}

// Path returns the file, generating it on first use.
func (l LinedObject) Path() (string, error) {
	path := filepath.Join(CacheDir(), fmt.Sprintf("lined-%d-%d.txt", l.Lines, l.Width))
	if fi, err := os.Stat(path); err == nil && fi.Size() == int64(l.Lines*l.Width) {
		return path, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return "", err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	pad := strings.Repeat("x", l.Width)
	for i := 1; i <= l.Lines; i++ {
		head := fmt.Sprintf("line %09d ", i)
		w.WriteString(head)
		w.WriteString(pad[:l.Width-len(head)-1])
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	return path, os.Rename(tmp, path)
}

// KB describes a generated Markdown knowledge base: Docs documents of about
// DocBytes bytes with front matter, headings, links and wiki links.
type KB struct{ Docs, DocBytes int }

// DefaultKB is 1,000 documents of about 16 KiB.
var DefaultKB = KB{Docs: 1000, DocBytes: 16 << 10}

// Files returns the documents by logical path, generated deterministically.
func (k KB) Files() map[string][]byte {
	rng := rand.New(rand.NewPCG(3, 4))
	out := map[string][]byte{}
	name := func(i int) string { return fmt.Sprintf("area%02d/doc%04d.md", i%20, i) }
	for i := range k.Docs {
		var b strings.Builder
		fmt.Fprintf(&b, "---\ntitle: Document %d about %s\nsummary: A generated note on %s and %s.\ntags: [%s, %s]\nauthor: Author %d\ndate_published: 2026-%02d-%02d\ngraph_related: [Document %d about x]\n---\n",
			i, words[rng.IntN(len(words))], words[rng.IntN(len(words))], words[rng.IntN(len(words))], words[rng.IntN(len(words))], words[rng.IntN(len(words))], i%17, 1+i%12, 1+i%28, (i+1)%k.Docs)
		fmt.Fprintf(&b, "# Document %d\n\n", i)
		for b.Len() < k.DocBytes {
			fmt.Fprintf(&b, "## Section %d\n\n", b.Len())
			for range 6 {
				for range 12 {
					b.WriteString(words[rng.IntN(len(words))])
					b.WriteByte(' ')
				}
				switch rng.IntN(6) {
				case 0:
					j := rng.IntN(k.Docs)
					rel := "../" + name(j)
					fmt.Fprintf(&b, "see [doc %d](%s) ", j, rel)
				case 1:
					fmt.Fprintf(&b, "and [[Document %d about x]] ", rng.IntN(k.Docs))
				}
				b.WriteString("\n")
			}
			b.WriteString("\n")
		}
		out[name(i)] = []byte(b.String())
	}
	return out
}

// Dir writes the knowledge base into a directory of the cache, once, and
// returns it: a local vault for the directory store.
func (k KB) Dir() (string, error) {
	dir := filepath.Join(CacheDir(), fmt.Sprintf("kb-%d-%d", k.Docs, k.DocBytes))
	if _, err := os.Stat(filepath.Join(dir, ".complete")); err == nil {
		return dir, nil
	}
	os.RemoveAll(dir)
	for name, body := range k.Files() {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, body, 0o644); err != nil {
			return "", err
		}
	}
	return dir, os.WriteFile(filepath.Join(dir, ".complete"), nil, 0o644)
}

// VaultKB is a local vault of 14,000 notes of about 3 KiB, the size of the
// largest vault the graph was tried on.
var VaultKB = KB{Docs: 14000, DocBytes: 3 << 10}
