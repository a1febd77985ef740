package mdkb_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/filecontext-aws/filecontext/pkg/fault"
	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/fileops/memstore"
	"github.com/filecontext-aws/filecontext/pkg/mdkb"
)

func relatedVault(t *testing.T) *mdkb.Service {
	ctx := context.Background()
	data := memstore.New()
	for name, body := range map[string]string{
		"hub.md":          "---\ngraph_related: [Archive]\n---\n# Hub\n\nSee [the *setup* guide](guides/setup.md), [again](guides/setup.md), [[Notes/Daily|today's note]], [[Notes/Daily]] and [[archive|the archive]].\n",
		"guides/setup.md": "# Setup\n\nBack to [[hub]].\n",
		"Notes/Daily.md":  "# Daily\n\nLinks to [[Setup#Install]] and `[[hub]]` in code.\n",
		"archive.md":      "---\ntitle: Archive\n---\nOld things.\n",
		"lonely.md":       "# Lonely\n\nNo links.\n",
	} {
		data.Put(ctx, "kb-root/"+name, []byte(body), fileops.PutOptions{})
	}
	return newService(t, data, nil, nil)
}

func linksOf(r *mdkb.RelatedResult) string {
	var out []string
	for _, l := range r.Links {
		s := fmt.Sprintf("%s%d %s %s %q", l.Direction, l.Depth, l.Path, l.Predicate, l.LinkText)
		if l.Via != "" {
			s += " via " + l.Via
		}
		out = append(out, s)
	}
	return strings.Join(out, "\n")
}

func TestRelatedFollowsANotesNeighbourhood(t *testing.T) {
	ctx := context.Background()
	s := relatedVault(t)
	for _, tc := range []struct {
		args mdkb.RelatedArgs
		want string
	}{
		{mdkb.RelatedArgs{Path: "hub.md"}, `out1 Notes/Daily.md mentions "today's note"
out1 archive.md mentions "the archive"
out1 archive.md related "Archive"
out1 guides/setup.md mentions "the setup guide"
in1 guides/setup.md mentions "hub"`},
		{mdkb.RelatedArgs{Path: "hub.md", Direction: "in"}, `in1 guides/setup.md mentions "hub"`},
		{mdkb.RelatedArgs{Path: "Notes/Daily.md", Direction: "out", Depth: 2}, `out1 guides/setup.md mentions "Setup#Install"
out2 hub.md mentions "hub" via guides/setup.md`},
		{mdkb.RelatedArgs{Path: "guides/setup.md", Direction: "in", Depth: 2}, `in1 Notes/Daily.md mentions "Setup#Install"
in1 hub.md mentions "the setup guide"`},
		{mdkb.RelatedArgs{Path: "lonely.md", Direction: "both", Depth: 2}, ``},
	} {
		r, err := s.Related(ctx, tc.args)
		if err != nil {
			t.Fatalf("%+v: %v", tc.args, err)
		}
		if got := linksOf(r); got != tc.want {
			t.Errorf("%+v:\n%s\nwant\n%s", tc.args, got, tc.want)
		}
		if r.Truncated || r.Path != tc.args.Path || r.Title == "" {
			t.Errorf("%+v: %+v", tc.args, r)
		}
	}
	r, err := s.Related(ctx, mdkb.RelatedArgs{Path: "hub.md", MaxResults: 2})
	if err != nil || len(r.Links) != 2 || !r.Truncated || r.Limit != "maxResults" || r.Title != "Hub" {
		t.Errorf("bounded: %+v %v", r, err)
	}
	for _, tc := range []struct {
		args mdkb.RelatedArgs
		code fault.Code
	}{
		{mdkb.RelatedArgs{Path: "missing.md"}, fault.NotFound},
		{mdkb.RelatedArgs{Path: "hub.md", Direction: "sideways"}, fault.InvalidArgument},
		{mdkb.RelatedArgs{Path: "hub.md", Depth: 3}, fault.InvalidArgument},
		{mdkb.RelatedArgs{Path: "hub.md", MaxResults: -1}, fault.InvalidArgument},
		{mdkb.RelatedArgs{Path: ""}, fault.InvalidArgument},
		{mdkb.RelatedArgs{Path: "../x.md"}, fault.InvalidPath},
		{mdkb.RelatedArgs{Path: "hub.md", Directory: "guides"}, fault.NotFound},
	} {
		if _, err := s.Related(ctx, tc.args); fault.CodeOf(err) != tc.code {
			t.Errorf("%+v: %v, want %s", tc.args, err, tc.code)
		}
	}
}
