package rundir

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/entropix-eval/entropix-eval/sampler"
)

// Field is one value of manifest.json as a reader in another language finds
// it: its JSON type, whether its key may be absent or its value null, and an
// object's keys or an array's (or map's) items.
type Field struct {
	// Type is string, number, bool, object, array or any.
	Type string `json:"type"`
	// Format is "date-time" for an RFC 3339 time.
	Format   string `json:"format,omitempty"`
	Optional bool   `json:"optional,omitempty"`
	Nullable bool   `json:"nullable,omitempty"`
	// Fields are an object's keys, spelled exactly as the file spells them.
	Fields map[string]Field `json:"fields,omitempty"`
	// Open objects may hold keys beyond Fields (a sampler's parameters).
	Open bool `json:"open,omitempty"`
	// Items are an array's elements, or the values of an object keyed by data.
	Items *Field `json:"items,omitempty"`
}

// ManifestSchema describes manifest.json key by key, derived from Manifest's
// Go type and JSON tags, so a reader in another language can check a manifest
// field for field (reports/arrowcheck/checkmanifest.mjs).
func ManifestSchema() Field { return schemaOf(reflect.TypeFor[Manifest]()) }

var (
	rawType  = reflect.TypeFor[json.RawMessage]()
	timeType = reflect.TypeFor[time.Time]()
	specType = reflect.TypeFor[sampler.Spec]()
)

// schemaOf follows encoding/json's rules for the types a manifest holds. A
// type with its own MarshalJSON must be described here by hand: it panics on
// one it does not know, which TestManifestSchema catches.
func schemaOf(t reflect.Type) Field {
	if t.Kind() == reflect.Pointer {
		f := schemaOf(t.Elem())
		f.Nullable = true
		return f
	}
	switch t {
	case rawType:
		return Field{Type: "any", Nullable: true}
	case timeType:
		return Field{Type: "string", Format: "date-time"}
	case specType: // MarshalJSON's flat form: name, label, then the parameters
		return Field{Type: "object", Open: true, Fields: map[string]Field{
			"name": {Type: "string"}, "label": {Type: "string", Optional: true},
		}}
	}
	if t.Implements(reflect.TypeFor[json.Marshaler]()) {
		panic(fmt.Sprintf("rundir.ManifestSchema: %s has its own MarshalJSON; describe it in schemaOf", t))
	}
	switch t.Kind() {
	case reflect.String:
		return Field{Type: "string"}
	case reflect.Bool:
		return Field{Type: "bool"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return Field{Type: "number"}
	case reflect.Interface:
		return Field{Type: "any", Nullable: true}
	case reflect.Slice, reflect.Array:
		items := schemaOf(t.Elem())
		return Field{Type: "array", Nullable: t.Kind() == reflect.Slice, Items: &items}
	case reflect.Map:
		items := schemaOf(t.Elem())
		return Field{Type: "object", Nullable: true, Items: &items}
	case reflect.Struct:
		f := Field{Type: "object", Fields: map[string]Field{}}
		for i := range t.NumField() {
			sf := t.Field(i)
			if !sf.IsExported() {
				continue
			}
			name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
			if name == "-" && opts == "" {
				continue
			}
			if name == "" {
				name = sf.Name
			}
			field := schemaOf(sf.Type)
			field.Optional = strings.Contains(","+opts+",", ",omitempty,")
			f.Fields[name] = field
		}
		return f
	}
	panic(fmt.Sprintf("rundir.ManifestSchema: no JSON form for %s", t))
}
