package fileops

import (
	"context"
	"sort"
	"strings"
)

// LsArgs are the arguments of file_access_ls.
type LsArgs struct {
	Directory   string
	GlobPattern string
}

// LsResult is the result of file_access_ls.
type LsResult struct {
	Directory string  `json:"directory"`
	Entries   []Entry `json:"entries"`
	Truncated bool    `json:"truncated"`
	// FilesSkipped is present when keys that are not valid logical paths
	// ("..", empty segments, control characters) were left out.
	FilesSkipped *LsSkipped `json:"filesSkipped,omitempty"`
}

// LsSkipped counts the children ls left out.
type LsSkipped struct {
	InvalidName int `json:"invalidName"`
}

// Entry is one child of a directory.
type Entry struct {
	Name string `json:"name"`
	Type string `json:"type"` // "directory" or "file"
}

// Ls lists the direct children of a directory: directories first, then
// files, each in byte order of name. A name that is both a file and a prefix
// appears once with each type; folder-marker keys (ending in "/") are
// directories; a missing directory has no entries. The glob filters names.
func (s *Service) Ls(ctx context.Context, a LsArgs) (*LsResult, error) {
	d, err := s.root.ParseDir(a.Directory)
	if err != nil {
		return nil, err
	}
	g, err := CompileGlob(a.GlobPattern)
	if err != nil {
		return nil, err
	}
	res := &LsResult{Directory: d.String(), Entries: []Entry{}}
	max := s.limits.MaximumListEntries
	prefix := d.Key()
	var dirs, files []Entry
	invalid := 0
	add := func(e Entry) bool {
		if _, err := s.root.FromKey(prefix + e.Name); err != nil {
			invalid++
			return true
		}
		if !g.Match(e.Name) {
			return true
		}
		if len(dirs)+len(files) == max {
			res.Truncated = true
			return false
		}
		if e.Type == "directory" {
			dirs = append(dirs, e)
		} else {
			files = append(files, e)
		}
		return true
	}
	token := ""
	for more := true; more; {
		page, err := s.store.List(ctx, ListOptions{Prefix: prefix, Delimiter: "/", Token: token})
		if err != nil {
			return nil, MapStoreError("list", d.String(), err)
		}
		for _, cp := range page.CommonPrefixes {
			if more = add(Entry{Name: strings.TrimSuffix(cp[len(prefix):], "/"), Type: "directory"}); !more {
				break
			}
		}
		for _, o := range page.Objects {
			if !more {
				break
			}
			if o.Key == prefix { // the directory's own folder marker
				continue
			}
			more = add(Entry{Name: o.Key[len(prefix):], Type: "file"})
		}
		token = page.NextToken
		more = more && token != ""
	}
	byName := func(es []Entry) { sort.Slice(es, func(i, j int) bool { return es[i].Name < es[j].Name }) }
	byName(dirs)
	byName(files)
	res.Entries = append(append(res.Entries, dirs...), files...)
	if invalid > 0 {
		res.FilesSkipped = &LsSkipped{InvalidName: invalid}
	}
	return res, nil
}
