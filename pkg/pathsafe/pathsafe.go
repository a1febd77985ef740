// Package pathsafe turns the paths agents send into storage keys that cannot
// escape the configured root (CONTRACT §1).
//
// A Path is made only by Parse (a file) or ParseDir (a directory), on the
// package level (empty root prefix) or on a Root. An unchecked string can
// therefore never reach a Store: every operation takes a Path. The checks are
// lexical and byte-exact: no Unicode normalisation, no case folding, percent
// signs are literal, exactly as S3 compares keys.
package pathsafe

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/filecontext-aws/filecontext/pkg/fault"
)

// MaxKeyBytes is the longest key S3 accepts; a path together with the root
// prefix must fit in it.
const MaxKeyBytes = 1024

// Root is a validated root prefix under which every logical path resolves.
// The zero Root is the bucket root.
type Root struct {
	prefix string // "" or ends in "/"
}

// NewRoot validates a root prefix. "" is the bucket root; otherwise the prefix
// obeys the directory rules of Parse and may end in one "/", which is implied
// when absent, so "docs" and "docs/" are the same root and "docs-other/x" is
// never under it.
func NewRoot(prefix string) (Root, error) {
	if prefix == "" {
		return Root{}, nil
	}
	p, err := Root{}.ParseDir(prefix)
	if err != nil {
		return Root{}, fmt.Errorf("root prefix %q: %s", prefix, fault.As(err).Message)
	}
	return Root{prefix: p.key}, nil
}

// Prefix returns the root prefix: "" or a string ending in "/".
func (r Root) Prefix() string { return r.prefix }

// Path is a checked logical path and the storage key it maps to.
type Path struct {
	logical string // without a trailing "/"; "" for the root directory
	key     string // root prefix + logical (+ "/" for a non-root directory)
	dir     bool
}

// String returns the logical path as agents see it, without the root prefix
// and without a trailing "/"; the root directory is "".
func (p Path) String() string { return p.logical }

// Key returns the storage key: for a file, the root prefix and the logical
// path; for a directory, the prefix every key under it starts with (ending in
// "/", or the root prefix itself for the root).
func (p Path) Key() string { return p.key }

// IsDir reports whether p was made by ParseDir.
func (p Path) IsDir() bool { return p.dir }

// IsRoot reports whether p is the root directory.
func (p Path) IsRoot() bool { return p.dir && p.logical == "" }

// Name returns the last segment of the logical path ("" for the root).
func (p Path) Name() string { return p.logical[strings.LastIndexByte(p.logical, '/')+1:] }

// Parse checks a file path under the bucket root. See Root.Parse.
func Parse(s string) (Path, error) { return Root{}.Parse(s) }

// ParseDir checks a directory path under the bucket root. See Root.ParseDir.
func ParseDir(s string) (Path, error) { return Root{}.ParseDir(s) }

// Parse checks a file path: not empty, no trailing "/", and every rule of
// CONTRACT §1. It fails with an invalid_path *fault.Error.
func (r Root) Parse(s string) (Path, error) {
	if s == "" {
		return Path{}, invalid(s, "a file path must not be empty")
	}
	if strings.HasSuffix(s, "/") {
		return Path{}, invalid(s, "a file path must not end in '/'")
	}
	if err := check(r.prefix, s); err != nil {
		return Path{}, err
	}
	return Path{logical: s, key: r.prefix + s}, nil
}

// ParseDir checks a directory path: "" is the root, one trailing "/" is
// allowed and dropped, and every other rule of CONTRACT §1 applies.
func (r Root) ParseDir(s string) (Path, error) {
	if s == "" {
		return Path{key: r.prefix, dir: true}, nil
	}
	logical := strings.TrimSuffix(s, "/")
	if logical == "" {
		return Path{}, invalid(s, "a path must not start with '/'")
	}
	if err := check(r.prefix, logical); err != nil {
		return Path{}, fault.As(err).WithPath(s)
	}
	return Path{logical: logical, key: r.prefix + logical + "/", dir: true}, nil
}

// FromKey maps a storage key back to the file path agents see. It fails when
// the key is not under the root or is not a valid path (such keys exist in a
// bucket but can never be addressed by an agent).
func (r Root) FromKey(key string) (Path, error) {
	rel, ok := r.Rel(key)
	if !ok {
		return Path{}, invalid(key, "the key is outside the root")
	}
	return r.Parse(rel)
}

// Rel strips the root prefix from a key. ok is false when the key is not
// strictly under the root.
func (r Root) Rel(key string) (rel string, ok bool) {
	if !strings.HasPrefix(key, r.prefix) || len(key) == len(r.prefix) {
		return "", false
	}
	return key[len(r.prefix):], true
}

// check applies the rules shared by files and directories to a non-empty
// logical path without its trailing "/".
func check(prefix, s string) error {
	if !utf8.ValidString(s) {
		return invalid(s, "the path is not valid UTF-8")
	}
	if len(prefix)+len(s) > MaxKeyBytes {
		return invalid(s, fmt.Sprintf("the path is longer than %d bytes with the root prefix", MaxKeyBytes))
	}
	first, _ := utf8.DecodeRuneInString(s)
	last, _ := utf8.DecodeLastRuneInString(s)
	if unicode.IsSpace(first) || unicode.IsSpace(last) {
		return invalid(s, "a path must not start or end with whitespace")
	}
	for _, c := range s {
		switch {
		case c < 0x20 || c == 0x7f:
			return invalid(s, "a path must not contain control characters")
		case c == '\\':
			return invalid(s, "a path must not contain '\\'")
		}
	}
	if s[0] == '/' {
		return invalid(s, "a path must not start with '/'")
	}
	for i, seg := range strings.Split(s, "/") {
		switch seg {
		case "":
			return invalid(s, "a path must not contain '//' (an empty segment)")
		case ".", "..":
			return invalid(s, "a path must not contain '.' or '..' segments")
		}
		if i == 0 && looksLikeDrive(seg) {
			return invalid(s, "a path must not start with a drive letter")
		}
	}
	return nil
}

// looksLikeDrive reports whether a first segment starts like a Windows drive
// ("C:", "c:notes"), which would be absolute or drive-relative on Windows.
func looksLikeDrive(seg string) bool {
	return len(seg) >= 2 && seg[1] == ':' &&
		(seg[0] >= 'a' && seg[0] <= 'z' || seg[0] >= 'A' && seg[0] <= 'Z')
}

func invalid(path, reason string) error {
	return fault.New(fault.InvalidPath, "Invalid path %q: %s.", path, reason).WithPath(path)
}
