// Command covercheck prints the statement coverage of a Go cover profile for
// each package under the given import-path prefixes, and fails when a
// prefix's total is below -min percent. Blocks reported by several test
// binaries (with -coverpkg) count as covered when any of them covered them.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
)

type block struct {
	stmts   int
	covered bool
}

func main() {
	profile := flag.String("profile", "cover.out", "cover profile")
	minPct := flag.Float64("min", 0, "minimum percent per prefix")
	uncovered := flag.Bool("uncovered", false, "list the uncovered blocks under the prefixes")
	flag.Parse()
	f, err := os.Open(*profile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "covercheck:", err)
		os.Exit(2)
	}
	defer f.Close()
	blocks := map[string]*block{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "mode:") || line == "" {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 3 {
			continue
		}
		stmts, _ := strconv.Atoi(fields[1])
		count, _ := strconv.Atoi(fields[2])
		b := blocks[fields[0]]
		if b == nil {
			b = &block{stmts: stmts}
			blocks[fields[0]] = b
		}
		b.covered = b.covered || count > 0
	}
	if *uncovered {
		var lines []string
		for pos, b := range blocks {
			for _, prefix := range flag.Args() {
				if strings.HasPrefix(pos, prefix+"/") && !b.covered && b.stmts > 0 {
					lines = append(lines, fmt.Sprintf("%s (%d)", pos, b.stmts))
				}
			}
		}
		sort.Strings(lines)
		for _, l := range lines {
			fmt.Println(l)
		}
		return
	}
	type tally struct{ total, covered int }
	byPkg := map[string]*tally{}
	for pos, b := range blocks {
		pkg := path.Dir(pos[:strings.LastIndexByte(pos, ':')])
		t := byPkg[pkg]
		if t == nil {
			t = &tally{}
			byPkg[pkg] = t
		}
		t.total += b.stmts
		if b.covered {
			t.covered += b.stmts
		}
	}
	pkgs := make([]string, 0, len(byPkg))
	for p := range byPkg {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	failed := false
	for _, prefix := range flag.Args() {
		var sum tally
		for _, p := range pkgs {
			if p == prefix || strings.HasPrefix(p, prefix+"/") {
				t := byPkg[p]
				fmt.Printf("  %-70s %6.1f%% of %d statements\n", p, pct(t.covered, t.total), t.total)
				sum.total += t.total
				sum.covered += t.covered
			}
		}
		got := pct(sum.covered, sum.total)
		status := "ok"
		if sum.total == 0 || got < *minPct {
			status = fmt.Sprintf("BELOW %.0f%%", *minPct)
			failed = true
		}
		fmt.Printf("coverage %s: %.1f%% (%d/%d statements) %s\n", prefix, got, sum.covered, sum.total, status)
	}
	if failed {
		os.Exit(1)
	}
}

func pct(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}
