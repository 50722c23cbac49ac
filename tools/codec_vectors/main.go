// Command codec_vectors writes cross-implementation test vectors for Skiff's
// protocol codec: for every request and response schema in protocol/schemas and
// every version it declares, messages encoded by franz-go's kmsg (an
// independent Kafka codec), one per line:
//
//	<api_key> <request|response> <version> <variant> <hex body>
//
// Variants: "default" (kmsg's defaults), "random" (random values, nil
// pointers and slices at random, unknown tags in flexible versions) and
// "dense" (random values, nothing nil, every array non-empty). The C++ tests decode each body and
// re-encode it byte for byte. Output is deterministic for a kmsg version.
//
// Usage: go run . -schemas ../../protocol/schemas -out ../../tests/protocol/vectors/kmsg_vectors.txt
package main

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

type schema struct {
	APIKey        *int16 `json:"apiKey"`
	Type          string `json:"type"`
	Name          string `json:"name"`
	ValidVersions string `json:"validVersions"`
	Flexible      string `json:"flexibleVersions"`
}

// versions parses "0-11" or "3" into an inclusive range.
func versions(s string) (int16, int16) {
	lo, hi, found := strings.Cut(s, "-")
	a, _ := strconv.Atoi(lo)
	if !found {
		return int16(a), int16(a)
	}
	b, _ := strconv.Atoi(hi)
	return int16(a), int16(b)
}

// message is what kmsg requests and responses have in common.
type message interface {
	SetVersion(int16)
	MaxVersion() int16
	IsFlexible() bool
	AppendTo([]byte) []byte
}

var tagsType = reflect.TypeOf(kmsg.Tags{})

type filler struct {
	rng      *rand.Rand
	nils     bool // allow nil pointers and slices
	flexible bool // add unknown tags
}

func (f *filler) fill(v reflect.Value, top bool) {
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == tagsType {
			if f.flexible {
				tags := v.Addr().Interface().(*kmsg.Tags)
				tag := uint32(1000)
				for i := f.rng.Intn(3); i > 0; i-- {
					tag += 1 + uint32(f.rng.Intn(200))
					data := make([]byte, f.rng.Intn(6))
					f.rng.Read(data)
					tags.Set(tag, data)
				}
			}
			return
		}
		for i := 0; i < v.NumField(); i++ {
			field := v.Type().Field(i)
			if !field.IsExported() || (top && field.Name == "Version") {
				continue
			}
			f.fill(v.Field(i), false)
		}
	case reflect.Ptr:
		if f.nils && f.rng.Intn(4) == 0 {
			v.Set(reflect.Zero(v.Type()))
			return
		}
		v.Set(reflect.New(v.Type().Elem()))
		f.fill(v.Elem(), false)
	case reflect.Slice:
		if f.nils && f.rng.Intn(5) == 0 {
			v.Set(reflect.Zero(v.Type()))
			return
		}
		n := f.rng.Intn(3)
		if !f.nils {
			n = 1 + f.rng.Intn(2) // dense: every nested struct appears
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			n = f.rng.Intn(24)
		}
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := 0; i < n; i++ {
			f.fill(s.Index(i), false)
		}
		v.Set(s)
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			f.fill(v.Index(i), false)
		}
	case reflect.String:
		b := make([]byte, f.rng.Intn(12))
		for i := range b {
			b[i] = byte('a' + f.rng.Intn(26))
		}
		v.SetString(string(b))
	case reflect.Bool:
		v.SetBool(f.rng.Intn(2) == 1)
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(f.rng.Uint64()))
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(f.rng.Uint64())
	case reflect.Float64:
		v.SetFloat(float64(f.rng.Intn(1000000)) / 8)
	default:
		panic("unhandled kind " + v.Kind().String())
	}
}

func newMessage(key int16, request bool) message {
	if request {
		if r := kmsg.RequestForKey(key); r != nil {
			return r
		}
		return nil
	}
	if r := kmsg.ResponseForKey(key); r != nil {
		return r
	}
	return nil
}

// stripLineComments drops the full-line // comments Kafka's schemas carry (the
// license header), as tools/gen_codec.py does; encoding/json rejects them.
func stripLineComments(data []byte) []byte {
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "//") {
			out = append(out, line)
		}
	}
	return []byte(strings.Join(out, "\n"))
}

func main() {
	schemas := flag.String("schemas", "../../protocol/schemas", "schema directory")
	out := flag.String("out", "../../tests/protocol/vectors/kmsg_vectors.txt", "output file")
	flag.Parse()

	paths, err := filepath.Glob(filepath.Join(*schemas, "*.json"))
	if err != nil {
		panic(err)
	}
	sort.Strings(paths)
	var specs []schema
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			panic(err)
		}
		var s schema
		if err := json.Unmarshal(stripLineComments(data), &s); err != nil {
			panic(fmt.Sprintf("%s: %v", p, err))
		}
		if s.APIKey != nil {
			specs = append(specs, s)
		}
	}
	sort.Slice(specs, func(i, j int) bool {
		if *specs[i].APIKey != *specs[j].APIKey {
			return *specs[i].APIKey < *specs[j].APIKey
		}
		return specs[i].Type < specs[j].Type
	})

	f, err := os.Create(*out)
	if err != nil {
		panic(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "# Generated by tools/codec_vectors (franz-go kmsg); do not edit.")
	fmt.Fprintln(w, "# api_key kind version variant hex_body")
	for _, s := range specs {
		key := *s.APIKey
		request := s.Type == "request"
		lo, hi := versions(s.ValidVersions)
		for v := lo; v <= hi; v++ {
			probe := newMessage(key, request)
			if probe == nil || v > probe.MaxVersion() {
				fmt.Fprintf(w, "# missing %d %s %d: kmsg lacks it\n", key, s.Type, v)
				continue
			}
			for _, variant := range []string{"default", "random", "dense"} {
				m := newMessage(key, request)
				if d, ok := m.(interface{ Default() }); ok {
					d.Default()
				}
				m.SetVersion(v)
				if variant != "default" {
					seed := int64(key)*1_000_003 + int64(v)*101 + int64(len(variant))
					if request {
						seed += 7
					}
					fl := &filler{rng: rand.New(rand.NewSource(seed)), nils: variant == "random",
						flexible: m.IsFlexible()}
					fl.fill(reflect.ValueOf(m).Elem(), true)
				}
				body := m.AppendTo(nil)
				fmt.Fprintf(w, "%d %s %d %s %s\n", key, s.Type, v, variant, hex.EncodeToString(body))
			}
		}
	}
	if err := w.Flush(); err != nil {
		panic(err)
	}
	if err := f.Close(); err != nil {
		panic(err)
	}
}
