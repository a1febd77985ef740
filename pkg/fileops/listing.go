package fileops

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"sort"
	"strings"
)

// PageSorted cuts one page of a listing out of every object under
// opts.Prefix, sorted by key, the way S3's ListObjectsV2 does: with a
// delimiter, keys sharing a prefix up to the next delimiter after
// opts.Prefix fold into one common prefix; objects and common prefixes
// together count against MaxKeys; the token resumes after the last key or
// common prefix returned. Stores that hold their keys in memory or on disk
// use it so paging behaves as S3 pages.
func PageSorted(objs []ObjectInfo, opts ListOptions) (ListPage, error) {
	maxKeys := opts.MaxKeys
	if maxKeys <= 0 {
		maxKeys = DefaultMaxKeys
	}
	start := sort.Search(len(objs), func(i int) bool { return objs[i].Key >= opts.Prefix })
	if opts.Token != "" {
		t, err := decodePageToken(opts.Token)
		if err != nil {
			return ListPage{}, err
		}
		start = sort.Search(len(objs), func(i int) bool { return objs[i].Key > t.After })
		if t.Prefix {
			for start < len(objs) && strings.HasPrefix(objs[start].Key, t.After) {
				start++
			}
		}
	}
	var page ListPage
	n := 0
	for i := start; i < len(objs); i++ {
		key := objs[i].Key
		if !strings.HasPrefix(key, opts.Prefix) {
			break
		}
		if n == maxKeys {
			last := pageToken{}
			if len(page.CommonPrefixes) > 0 && (len(page.Objects) == 0 || page.CommonPrefixes[len(page.CommonPrefixes)-1] > page.Objects[len(page.Objects)-1].Key) {
				last = pageToken{After: page.CommonPrefixes[len(page.CommonPrefixes)-1], Prefix: true}
			} else {
				last = pageToken{After: page.Objects[len(page.Objects)-1].Key}
			}
			page.NextToken = encodePageToken(last)
			break
		}
		if opts.Delimiter != "" {
			if j := strings.Index(key[len(opts.Prefix):], opts.Delimiter); j >= 0 {
				cp := key[:len(opts.Prefix)+j+len(opts.Delimiter)]
				page.CommonPrefixes = append(page.CommonPrefixes, cp)
				n++
				for i+1 < len(objs) && strings.HasPrefix(objs[i+1].Key, cp) {
					i++
				}
				continue
			}
		}
		page.Objects = append(page.Objects, objs[i])
		n++
	}
	return page, nil
}

type pageToken struct {
	After  string `json:"a"`
	Prefix bool   `json:"p,omitempty"`
}

func encodePageToken(t pageToken) string {
	b, _ := json.Marshal(t)
	return base64.RawURLEncoding.EncodeToString(b)
}

// ErrBadToken is returned for a continuation token the store did not issue.
var ErrBadToken = errors.New("invalid continuation token")

func decodePageToken(s string) (pageToken, error) {
	var t pageToken
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		err = json.Unmarshal(b, &t)
	}
	if err != nil {
		return t, &StoreError{Code: "InvalidArgument", Err: ErrBadToken}
	}
	return t, nil
}
