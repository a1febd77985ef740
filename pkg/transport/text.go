package transport

import (
	"unicode/utf8"

	"github.com/filecontext-aws/filecontext/pkg/fault"
)

// checkBodyText refuses a request body that is not valid UTF-8 or whose JSON
// strings hold a lone surrogate escape ("\ud800" without its pair). Go's
// JSON decoder would silently turn either into U+FFFD, so a path or content
// would reach storage changed; the caller is told instead, before any
// storage call.
func checkBodyText(b []byte) error {
	if !utf8.Valid(b) {
		return fault.New(fault.InvalidArgument, "The request body is not valid UTF-8; paths and content must be UTF-8 text (send bytes as base64 content only where a tool takes it).")
	}
	inString := false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			inString = !inString
		case c == '\\' && inString && i+1 < len(b):
			if b[i+1] != 'u' {
				i++ // an escaped character; "\\\"" does not end the string
				continue
			}
			r, ok := hex4(b, i+2)
			if !ok {
				i++
				continue
			}
			switch {
			case r >= 0xD800 && r < 0xDC00: // high: a low must follow
				lo, ok := hex4(b, i+8)
				if !ok || i+7 >= len(b) || b[i+6] != '\\' || b[i+7] != 'u' || lo < 0xDC00 || lo > 0xDFFF {
					return loneSurrogate()
				}
				i += 11
			case r >= 0xDC00 && r <= 0xDFFF:
				return loneSurrogate()
			default:
				i += 5
			}
		}
	}
	return nil
}

func loneSurrogate() error {
	return fault.New(fault.InvalidArgument, "The request body holds a lone UTF-16 surrogate escape (\\ud800 to \\udfff without its pair), which is not a character.")
}

// hex4 reads four hex digits at b[i:], reporting false when there are not.
func hex4(b []byte, i int) (rune, bool) {
	if i < 0 || i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
