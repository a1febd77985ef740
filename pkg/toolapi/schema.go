package toolapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/filecontext-aws/filecontext/pkg/fault"
)

// Param is one argument of a tool: the single description from which the
// JSON Schema, the OpenAPI schema, strict decoding and Bedrock's string
// coercion are all derived.
type Param struct {
	Name        string
	Type        string // "string", "integer", "boolean" or "array" (of objects with Items)
	Description string
	Required    bool
	Default     any
	Minimum     *int
	Items       []Param // the fields of each object of an "array"
}

// JSONSchema returns the JSON Schema of an object with these fields.
func JSONSchema(params []Param, strict bool) map[string]any {
	props := map[string]any{}
	var required []string
	for _, p := range params {
		props[p.Name] = p.schema(strict)
		if p.Required {
			required = append(required, p.Name)
		}
	}
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	if strict {
		s["additionalProperties"] = false
	}
	return s
}

func (p Param) schema(strict bool) map[string]any {
	s := map[string]any{"type": p.Type, "description": p.Description}
	if p.Default != nil {
		s["default"] = p.Default
	}
	if p.Minimum != nil {
		s["minimum"] = *p.Minimum
	}
	if p.Type == "array" {
		s["items"] = JSONSchema(p.Items, strict)
	}
	return s
}

// decodeArgs checks a JSON object against params strictly: it must be an
// object, every member must be a known parameter of the right type, and
// every required parameter must be present. It returns the object
// re-encoded, ready for json.Unmarshal into the tool's argument struct.
func decodeArgs(tool string, params []Param, raw []byte) ([]byte, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		raw = []byte("{}")
	}
	var obj map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&obj); err != nil || obj == nil {
		return nil, fault.New(fault.InvalidArgument, "The arguments of %s must be one JSON object.", tool)
	}
	if dec.More() {
		return nil, fault.New(fault.InvalidArgument, "The arguments of %s must be one JSON object, with nothing after it.", tool)
	}
	changed, err := checkObject(tool, "", params, obj)
	if err != nil {
		return nil, err
	}
	if changed {
		// An integer written as 1.0 or 1e2 is re-encoded as 1 or 100, so the
		// tool's argument struct decodes it like any other integer.
		return json.Marshal(obj)
	}
	return raw, nil
}

// checkObject checks obj against params and rewrites, in obj, the values
// checkValue makes canonical; changed reports whether it rewrote any.
func checkObject(tool, at string, params []Param, obj map[string]json.RawMessage) (changed bool, err error) {
	byName := map[string]Param{}
	for _, p := range params {
		byName[p.Name] = p
	}
	names := make([]string, 0, len(obj))
	for k := range obj {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		p, ok := byName[k]
		if !ok {
			return false, fault.New(fault.InvalidArgument, "Unknown argument '%s%s' for %s; it takes %s.", at, k, tool, paramList(params)).With("argument", at+k)
		}
		v, err := checkValue(tool, at, p, obj[k])
		if err != nil {
			return false, err
		}
		if v != nil {
			obj[k], changed = v, true
		}
	}
	for _, p := range params {
		if _, ok := obj[p.Name]; p.Required && !ok {
			return false, fault.New(fault.InvalidArgument, "Missing required argument '%s%s' for %s.", at, p.Name, tool).With("argument", at+p.Name)
		}
	}
	return changed, nil
}

func paramList(params []Param) string {
	var names []string
	for _, p := range params {
		names = append(names, p.Name)
	}
	return strings.Join(names, ", ")
}

// checkValue checks one value against its parameter. It returns the value
// rewritten in canonical form when that differs from v (an integer written
// as 1.0; an array whose items changed), else nil.
func checkValue(tool, at string, p Param, v json.RawMessage) (json.RawMessage, error) {
	wrong := func(what string) (json.RawMessage, error) {
		return nil, fault.New(fault.InvalidArgument, "Argument '%s%s' of %s must be %s.", at, p.Name, tool, what).With("argument", at+p.Name)
	}
	v = bytes.TrimSpace(v)
	if string(v) == "null" {
		if p.Required {
			return wrong("given (it is required and may not be null)")
		}
		return nil, nil
	}
	switch p.Type {
	case "string":
		var s string
		if json.Unmarshal(v, &s) != nil {
			return wrong("a string")
		}
	case "boolean":
		var b bool
		if json.Unmarshal(v, &b) != nil {
			return wrong("true or false")
		}
	case "integer":
		var n json.Number
		if v[0] == '"' || json.Unmarshal(v, &n) != nil {
			return wrong("an integer")
		}
		i, err := strconv.ParseInt(n.String(), 10, 64)
		if err != nil {
			f, ferr := n.Float64()
			if ferr != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
				return wrong("an integer")
			}
			i = int64(f)
		}
		if i > math.MaxInt32 || i < math.MinInt32 {
			return wrong(fmt.Sprintf("an integer between %d and %d", math.MinInt32, math.MaxInt32))
		}
		if p.Minimum != nil && i < int64(*p.Minimum) {
			return wrong(fmt.Sprintf("at least %d", *p.Minimum))
		}
		if canon := strconv.FormatInt(i, 10); canon != string(v) {
			return json.RawMessage(canon), nil
		}
	case "array":
		var items []json.RawMessage
		if json.Unmarshal(v, &items) != nil {
			return wrong("an array")
		}
		changed := false
		for i, item := range items {
			var obj map[string]json.RawMessage
			if json.Unmarshal(item, &obj) != nil || obj == nil {
				return nil, fault.New(fault.InvalidArgument, "Item %d of '%s%s' of %s must be an object.", i, at, p.Name, tool).With("argument", at+p.Name)
			}
			c, err := checkObject(tool, fmt.Sprintf("%s%s[%d].", at, p.Name, i), p.Items, obj)
			if err != nil {
				return nil, err
			}
			if c {
				items[i], _ = json.Marshal(obj)
				changed = true
			}
		}
		if changed {
			return json.Marshal(items)
		}
	}
	return nil, nil
}

// coerce turns Bedrock's string-valued parameters into a JSON object typed by
// the tool's schema: integers and booleans are parsed, arrays (edits) are
// JSON text. Unknown names pass through as strings, to be refused by the
// strict decoder like any unknown argument.
func coerce(tool string, params []Param, values []NamedValue) ([]byte, error) {
	byName := map[string]Param{}
	for _, p := range params {
		byName[p.Name] = p
	}
	obj := map[string]any{}
	for _, nv := range values {
		p, ok := byName[nv.Name]
		if !ok {
			obj[nv.Name] = nv.Value
			continue
		}
		wrong := func(what string) error {
			return fault.New(fault.InvalidArgument, "Argument '%s' of %s must be %s, got %q.", nv.Name, tool, what, nv.Value).With("argument", nv.Name)
		}
		switch p.Type {
		case "integer":
			n, err := strconv.ParseInt(strings.TrimSpace(nv.Value), 10, 64)
			if err != nil {
				f, ferr := strconv.ParseFloat(strings.TrimSpace(nv.Value), 64)
				if ferr != nil || f != math.Trunc(f) {
					return nil, wrong("an integer")
				}
				n = int64(f)
			}
			obj[nv.Name] = n
		case "boolean":
			b, err := strconv.ParseBool(strings.TrimSpace(nv.Value))
			if err != nil {
				return nil, wrong("true or false")
			}
			obj[nv.Name] = b
		case "array":
			var v any
			if err := json.Unmarshal([]byte(nv.Value), &v); err != nil {
				return nil, wrong("a JSON array")
			}
			obj[nv.Name] = v
		default:
			obj[nv.Name] = nv.Value
		}
	}
	return json.Marshal(obj)
}

// NamedValue is one Bedrock parameter: every value arrives as a string.
type NamedValue struct {
	Name  string `json:"name"`
	Type  string `json:"type"`
	Value string `json:"value"`
}
