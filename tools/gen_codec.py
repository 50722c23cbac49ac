#!/usr/bin/env python3
"""Generates the Kafka protocol codec (C++) from the JSON schemas.

Usage: gen_codec.py --schemas DIR --out DIR [--list]
       gen_codec.py --records --schemas DIR --out DIR --include PREFIX [--list]

For every API (a FooRequest.json / FooResponse.json pair) it writes
foo_request.h, foo_response.h and foo.cc (both messages' code), plus
request_header.h / response_header.h / headers.cc, api_table.cc (the table
of APIs and the header-version rules) and registry.cc (type-erased
factories). Under fill/ it writes test-only random-fill code, compiled only
into tests and the fuzzer.

With --records it generates coordinator records instead ("type":
"coordinator-key" / "coordinator-value" / "data", e.g. the __transaction_state
TransactionLogKey / TransactionLogValue, or "metadata", the
__remote_log_metadata records of Kafka's kafka-storage jar): one foo.h and foo.cc per schema, the
same struct code, no API table; PREFIX is the include path of --out. How a
record is framed on disk (int16 prefix + struct) is the caller's business.
Schemas may keep Kafka's full-line // comments (the license header).

Design notes:
- Nested structs (and commonStructs) become types nested, flat, inside their
  message type, declared children first.
- A version guard is emitted only where a field's range does not cover every
  version the enclosing struct can be decoded in (cf. Kafka's
  VersionConditional); likewise for nullability and compact encodings.
- Python 3 standard library only: CMake runs this at build time.
"""

import argparse
import json
import os
import re
import sys

MAX_VERSION = 0x7FFF

CPP_KEYWORDS = {
    "alignas", "alignof", "and", "asm", "auto", "bool", "break", "case", "catch", "char",
    "class", "const", "constexpr", "continue", "default", "delete", "do", "double", "else",
    "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto", "if",
    "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "nullptr",
    "operator", "or", "private", "protected", "public", "register", "return", "short",
    "signed", "sizeof", "static", "struct", "switch", "template", "this", "throw", "true",
    "try", "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual", "void",
    "volatile", "while", "xor",
}
# Names the generated methods use for parameters, and member names they use.
RESERVED_MEMBERS = {"r", "w", "version", "unknown_tagged_fields"}
# Types from the runtime that a nested struct must not shadow.
RUNTIME_TYPES = {"Records", "Uuid", "ByteReader", "ByteWriter", "TaggedFields", "RawTaggedField"}

FIXED = {  # schema type -> (C++ type, size, reader/writer suffix)
    "int8": ("int8_t", 1, "int8"),
    "int16": ("int16_t", 2, "int16"),
    "uint16": ("uint16_t", 2, "uint16"),
    "int32": ("int32_t", 4, "int32"),
    "int64": ("int64_t", 8, "int64"),
    "float64": ("double", 8, "float64"),
    "bool": ("bool", 1, "bool"),
    "uuid": ("Uuid", 16, "uuid"),
}


class GenError(Exception):
    pass


# --------------------------------------------------------------------------
# Version ranges


class Versions:
    """An inclusive range of versions; lo > hi means empty."""

    def __init__(self, lo, hi):
        self.lo, self.hi = lo, hi

    @staticmethod
    def parse(text):
        text = (text or "none").strip()
        if text == "none":
            return Versions(1, 0)
        if text.endswith("+"):
            return Versions(int(text[:-1]), MAX_VERSION)
        if "-" in text:
            lo, hi = text.split("-")
            return Versions(int(lo), int(hi))
        return Versions(int(text), int(text))

    def empty(self):
        return self.lo > self.hi

    def __and__(self, other):
        return Versions(max(self.lo, other.lo), min(self.hi, other.hi))

    def hull(self, other):
        if self.empty():
            return other
        if other.empty():
            return self
        return Versions(min(self.lo, other.lo), max(self.hi, other.hi))

    def covers(self, other):
        return other.empty() or (self.lo <= other.lo and other.hi <= self.hi)

    def contains(self, v):
        return self.lo <= v <= self.hi

    def condition(self, within):
        """C++ test that a version in `within` lies in self; None if always."""
        parts = []
        if self.lo > within.lo:
            parts.append(f"version >= {self.lo}")
        if self.hi < within.hi:
            parts.append(f"version <= {self.hi}")
        return " && ".join(parts) or None

    def __repr__(self):
        return "none" if self.empty() else f"{self.lo}-{self.hi}"


# --------------------------------------------------------------------------
# Schema model


def snake_case(name):
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s)
    s = s.lower()
    if s in CPP_KEYWORDS or s in RESERVED_MEMBERS:
        s += "_"
    return s


class FieldType:
    """kind: a FIXED key, 'string', 'bytes', 'records', 'struct' or 'array'."""

    def __init__(self, text):
        self.text = text
        self.elem = None
        self.struct_name = None
        if text.startswith("[]"):
            self.kind = "array"
            self.elem = FieldType(text[2:])
        elif text in FIXED or text in ("string", "bytes", "records"):
            self.kind = text
        elif text[:1].isupper():
            self.kind = "struct"
            self.struct_name = text
        else:
            raise GenError(f"unknown type {text}")

    def struct_of(self):
        """The struct name of a struct or struct-array type."""
        if self.kind == "array":
            return self.elem.struct_of()
        return self.struct_name


class Field:
    def __init__(self, spec, msg_flexible):
        self.name = spec["name"]
        self.member = snake_case(self.name)
        self.type = FieldType(spec["type"])
        # A field tagged in every version may name only its taggedVersions.
        self.versions = Versions.parse(spec.get("versions") or spec["taggedVersions"])
        self.nullable = Versions.parse(spec.get("nullableVersions")) & self.versions
        self.tagged = Versions.parse(spec.get("taggedVersions"))
        self.tag = spec.get("tag")
        self.ignorable = bool(spec.get("ignorable", False))
        self.default = spec.get("default")
        self.struct = None  # resolved Struct for struct / struct-array types
        if "flexibleVersions" in spec:
            self.flexible = Versions.parse(spec["flexibleVersions"])
        else:
            self.flexible = msg_flexible
        if self.tag is not None and not self.tagged.empty():
            # Every schema we serve tags a field in all its versions.
            if (self.tagged.lo, self.tagged.hi) != (self.versions.lo, self.versions.hi):
                raise GenError(f"{self.name}: taggedVersions must equal versions")

    @property
    def is_tagged(self):
        return self.tag is not None


class Struct:
    def __init__(self, name, fields):
        self.name = name
        self.fields = fields
        self.versions = Versions(1, 0)  # hull of where it can be decoded

    def children(self):
        return [f.struct for f in self.fields if f.struct is not None]


def strip_line_comments(text):
    """Drops the full-line // comments Kafka's schemas carry (json cannot)."""
    return "\n".join(line for line in text.splitlines()
                     if not line.lstrip().startswith("//"))


RECORD_KINDS = ("coordinator-key", "coordinator-value", "data", "metadata")


class Message:
    def __init__(self, path):
        with open(path, encoding="utf-8") as fh:
            spec = json.loads(strip_line_comments(fh.read()))
        self.path = path
        self.name = spec["name"]
        self.kind = spec["type"]  # request / response / header
        self.api_key = spec.get("apiKey", -1)
        self.valid = Versions.parse(spec["validVersions"])
        self.flexible = Versions.parse(spec["flexibleVersions"])
        self.structs = {}  # name -> Struct, nested types
        commons = {}
        for common in spec.get("commonStructs", []):
            commons[common["name"]] = common
        self.root = Struct(self.name, self._fields(spec["fields"], commons))
        self._resolve_commons(self.root, commons)
        self._assign_versions(self.root, self.valid)
        self.order = self._declaration_order()

    def _fields(self, specs, commons):
        fields = []
        for fspec in specs:
            field = Field(fspec, self.flexible)
            sname = field.type.struct_of()
            if sname is not None and "fields" in fspec:
                if sname in self.structs or sname in commons:
                    raise GenError(f"{self.name}: struct {sname} defined twice")
                if sname in RUNTIME_TYPES:
                    raise GenError(f"{self.name}: struct {sname} shadows a runtime type")
                nested = Struct(sname, self._fields(fspec["fields"], commons))
                self.structs[sname] = nested
                field.struct = nested
            fields.append(field)
        return fields

    def _resolve_commons(self, struct, commons):
        for field in struct.fields:
            sname = field.type.struct_of()
            if sname is None:
                continue
            if field.struct is None:
                if sname not in self.structs:
                    if sname not in commons:
                        raise GenError(f"{self.name}: unknown struct {sname}")
                    spec = commons[sname]
                    self.structs[sname] = Struct(sname, self._fields(spec["fields"], commons))
                    self._resolve_commons(self.structs[sname], commons)
                field.struct = self.structs[sname]
            else:
                self._resolve_commons(field.struct, commons)

    def _assign_versions(self, struct, versions):
        struct.versions = struct.versions.hull(versions)
        for field in struct.fields:
            if field.struct is not None:
                present = field.versions & versions
                if not present.empty():
                    self._assign_versions(field.struct, present)

    def _declaration_order(self):
        order, seen = [], set()

        def visit(struct):
            for child in struct.children():
                if child.name not in seen:
                    seen.add(child.name)
                    visit(child)
                    order.append(child)

        visit(self.root)
        return order

    def is_flexible(self, version):
        return self.flexible.contains(version)


# --------------------------------------------------------------------------
# Field helpers shared by the emitters


def cpp_base_type(ftype):
    if ftype.kind in FIXED:
        return FIXED[ftype.kind][0]
    if ftype.kind == "array":
        return f"std::vector<{cpp_base_type(ftype.elem)}>"
    return {
        "string": "std::string",
        "bytes": "std::vector<uint8_t>",
        "records": "Records",
        "struct": ftype.struct_name,
    }[ftype.kind]


def is_optional(field, within):
    """Whether the member is a std::optional (records carry their own null)."""
    return field.type.kind != "records" and not (field.nullable & within).empty()


def cpp_type(field, within):
    base = cpp_base_type(field.type)
    return f"std::optional<{base}>" if is_optional(field, within) else base


def cpp_int_literal(value, ctype):
    bits = {"int8_t": 8, "int16_t": 16, "uint16_t": 16, "int32_t": 32, "int64_t": 64}[ctype]
    if value == -(1 << (bits - 1)) and bits >= 32:
        suffix = "LL" if bits == 64 else ""
        return f"(-{(1 << (bits - 1)) - 1}{suffix} - 1)"
    return f"{value}LL" if bits == 64 else str(value)


def cpp_string_literal(text):
    return json.dumps(text)  # JSON escapes are valid C++ for these schemas


def default_value(field, within):
    """C++ expression for the field's default, or None for value-init."""
    kind = field.type.kind
    d = field.default
    if d is not None and str(d).lower() == "null":
        if not is_optional(field, within) and kind != "records":
            raise GenError(f"{field.name}: null default on a non-nullable field")
        return None  # nullopt / null Records
    if kind in ("int8", "int16", "uint16", "int32", "int64"):
        value = int(str(d), 0) if d not in (None, "") else 0
        return cpp_int_literal(value, FIXED[kind][0])
    if kind == "float64":
        return repr(float(d)) if d not in (None, "") else "0.0"
    if kind == "bool":
        return "true" if str(d).lower() == "true" else "false"
    if kind == "string":
        if is_optional(field, within):
            return f"std::string({cpp_string_literal(d or '')})"
        return cpp_string_literal(d) if d else None
    if kind in ("uuid", "records"):
        return None
    if is_optional(field, within):  # bytes, array, struct default to present
        return f"{cpp_base_type(field.type)}{{}}"
    return None


def is_default_expr(field, within, expr):
    """C++ test that `expr` (the member) holds the field's default."""
    kind = field.type.kind
    d = field.default
    if kind == "records":
        return f"{expr}.is_null()"
    if is_optional(field, within):
        if d is not None and str(d).lower() == "null":
            return f"!{expr}.has_value()"
        if kind == "string":
            return f"({expr} && *{expr} == {cpp_string_literal(d or '')})"
        if kind in ("bytes", "array"):
            return f"({expr} && {expr}->empty())"
        return f"({expr} && *{expr} == {field.type.struct_name}{{}})"
    if kind in ("bytes", "array"):
        return f"{expr}.empty()"
    if kind == "string":
        return f"{expr} == {cpp_string_literal(d)}" if d else f"{expr}.empty()"
    if kind == "struct":
        return f"{expr} == {field.type.struct_name}{{}}"
    if kind == "uuid":
        return f"{expr} == Uuid{{}}"
    return f"{expr} == {default_value(field, within)}"


def compact_expr(field, present, flex_var):
    """C++ bool: does the field use compact encodings in this version?"""
    flex = field.flexible & present
    if flex.empty():
        return "false"
    if flex.covers(present):
        return "true"
    if flex_var and (field.flexible.lo, field.flexible.hi) == flex_var[1]:
        return flex_var[0]
    return f"(version >= {field.flexible.lo})"


def min_size(msg, ftype, field_nullable_here, version):
    """Smallest encoding of a value of this type in `version` (non-tagged)."""
    compact = msg.is_flexible(version)
    kind = ftype.kind
    if kind in FIXED:
        return FIXED[kind][1]
    if kind == "string":
        return 1 if compact else 2
    if kind in ("bytes", "records", "array"):
        return 1 if compact else 4
    if field_nullable_here:
        return 1
    return struct_min_size(msg, msg.structs[ftype.struct_name], version)


def struct_min_size(msg, struct, version):
    total = 1 if msg.is_flexible(version) else 0
    for f in struct.fields:
        if f.versions.contains(version) and not f.is_tagged:
            total += min_size(msg, f.type, f.nullable.contains(version), version)
    return total


def element_min_size(msg, field, present):
    """Lower bound on one array element's size over the present versions."""
    elem = field.type.elem
    hi = min(present.hi, msg.valid.hi)
    sizes = [min_size(msg, elem, False, v) for v in range(present.lo, hi + 1)]
    return max(1, min(sizes)) if sizes else 1


# --------------------------------------------------------------------------
# Emitters. Each returns a list of C++ lines (without indentation of the
# enclosing block; `indent` adds it).


def indent(lines, n=1):
    pad = "  " * n
    return [pad + line if line else line for line in lines]


class StructEmitter:
    """Emits decode / encode / encoded_size for one struct of a message."""

    def __init__(self, msg, struct):
        self.msg = msg
        self.struct = struct
        self.range = struct.versions & msg.valid
        self.flex = msg.flexible & self.range
        self.qualified = msg.name if struct is msg.root else \
            f"{nested_namespace(msg)}::{struct.name}"
        self.is_root = struct is msg.root
        # Nested structs name their message in errors.
        self.name_expr = "kName" if self.is_root else f'"{msg.name}"'
        self.has_tags = not self.flex.empty()
        # A shared `flexible` local when the struct spans both encodings.
        mixed = not self.flex.empty() and not self.flex.covers(self.range)
        self.flex_var = ("flexible", (msg.flexible.lo, msg.flexible.hi)) if mixed else None

    def present(self, field):
        return field.versions & self.range

    def prologue(self):
        if self.flex_var:
            return [f"[[maybe_unused]] const bool flexible = version >= {self.msg.flexible.lo};"]
        return []

    def tags_guard(self):
        return "flexible" if self.flex_var else None

    def tag_active(self, field):
        """C++ test: is this known tagged field written?"""
        test = negate(is_default_expr(field, self.range, field.member))
        cond = self.present(field).condition(self.flex)
        return f"({cond}) && {test}" if cond else test

    def tagged_fields(self):
        return sorted((f for f in self.struct.fields if f.is_tagged and
                       not self.present(f).empty()), key=lambda f: f.tag)

    # ---- decode

    def decode(self):
        lines = [f"void {self.qualified}::decode(ByteReader& r, int16_t version) {{"]
        body = []
        if self.is_root:
            body.append(f"if (version < {self.msg.valid.lo} || version > {self.msg.valid.hi}) "
                        f"detail::throw_unsupported_version(kName, version);")
            body.append(f"*this = {self.msg.name}{{}};")
        body += self.prologue()
        for field in self.struct.fields:
            present = self.present(field)
            if field.is_tagged or present.empty():
                continue
            code = self.decode_field(field, present, field.member, "r")
            body += guarded(present.condition(self.range), code)
        if self.has_tags:
            body += guarded(self.tags_guard(), self.decode_tags())
        lines += indent(body) + ["}", ""]
        return lines

    def decode_tags(self):
        known = self.tagged_fields()
        if not known:
            return ["r.read_unknown_tagged_fields(unknown_tagged_fields);"]
        lines = [
            "const uint32_t tag_count = r.read_uvarint();",
            "for (uint32_t i = 0; i < tag_count; ++i) {",
            "  const uint32_t tag = r.read_uvarint();",
            "  ByteReader field_reader = r.read_tagged_field_body();",
            "  switch (tag) {",
        ]
        for field in known:
            present = self.present(field)
            cond = present.condition(self.flex)
            lines.append(f"    case {field.tag}:")
            if cond:
                lines.append(f"      if (!({cond})) {{")
                lines.append("        unknown_tagged_fields.push_back("
                             "field_reader.take_raw_tagged_field(tag));")
                lines.append("        break;")
                lines.append("      }")
            lines += indent(self.decode_field(field, present, field.member, "field_reader"), 3)
            lines.append("      break;")
        lines += [
            "    default:",
            "      unknown_tagged_fields.push_back(field_reader.take_raw_tagged_field(tag));",
            "  }",
            "}",
        ]
        return lines

    def decode_field(self, field, present, target, reader):
        nullable = field.nullable & present
        compact = compact_expr(field, present, self.flex_var)
        kind = field.type.kind
        if kind == "records":
            return [f"{target} = {reader}.read_records({compact}, "
                    f"{bool_expr(nullable, present)});"]
        if nullable.empty():
            return self.decode_value(field.type, target, reader, compact, field, present)
        null_code = self.decode_nullable(field, present, target, reader, compact)
        if nullable.covers(present):
            return null_code
        cond = nullable.condition(present)
        plain = self.decode_value(field.type, target + "_value", reader, compact, field, present)
        return [f"if ({cond}) {{"] + indent(null_code) + ["} else {"] + indent(
            [f"{cpp_base_type(field.type)} {target}_value;"] + plain +
            [f"{target} = std::move({target}_value);"]) + ["}"]

    def decode_nullable(self, field, present, target, reader, compact):
        kind = field.type.kind
        if kind == "string":
            return [f"{target} = {reader}.read_nullable_string({compact});"]
        if kind == "bytes":
            return [f"{target} = {reader}.read_nullable_bytes({compact});"]
        if kind == "struct" and field.is_tagged:
            # Java's generator marks a tagged nullable struct with a uvarint
            # (0 null, 1 present), an untagged one with an int8 (-1 / 1).
            return [f"if ({reader}.read_uvarint() > 0) {{",
                    f"  {target}.emplace();",
                    f"  {target}->decode({reader}, version);",
                    "} else {",
                    f"  {target}.reset();",
                    "}"]
        if kind == "struct":
            return [f"if ({reader}.read_int8() >= 0) {{",
                    f"  {target}.emplace();",
                    f"  {target}->decode({reader}, version);",
                    "} else {",
                    f"  {target}.reset();",
                    "}"]
        if kind == "array":
            min_elem = element_min_size(self.msg, field, present)
            lines = ["{",
                     f"  const int64_t count = {reader}.read_nullable_array_length("
                     f"{compact}, {min_elem}, detail::element_size({target}));",
                     "  if (count < 0) {",
                     f"    {target}.reset();",
                     "  } else {",
                     f"    {target}.emplace(static_cast<size_t>(count));",
                     f"    for (auto& e : *{target}) {{"]
            lines += indent(self.decode_value(field.type.elem, "e", reader, compact, field,
                                              present), 3)
            return lines + ["    }", "  }", "}"]
        raise GenError(f"{field.name}: nullable {kind} is not supported")

    def decode_value(self, ftype, target, reader, compact, field, present):
        kind = ftype.kind
        if kind in FIXED:
            return [f"{target} = {reader}.read_{FIXED[kind][2]}();"]
        if kind == "string":
            return [f"{target} = {reader}.read_string({compact});"]
        if kind == "bytes":
            return [f"{target} = {reader}.read_bytes({compact});"]
        if kind == "struct":
            return [f"{target}.decode({reader}, version);"]
        if kind == "array":
            min_elem = element_min_size(self.msg, field, present)
            return [f"{target}.resize({reader}.read_array_length({compact}, {min_elem}, "
                    f"detail::element_size({target})));",
                    f"for (auto& e : {target}) {{"] + indent(
                        self.decode_value(ftype.elem, "e", reader, compact, field,
                                          present)) + ["}"]
        raise GenError(f"cannot decode {kind}")

    # ---- encode

    def encode(self):
        lines = [f"void {self.qualified}::encode(ByteWriter& w, int16_t version) const {{"]
        body = []
        if self.is_root:
            body.append(f"if (version < {self.msg.valid.lo} || version > {self.msg.valid.hi}) "
                        f"detail::throw_unsupported_version(kName, version);")
        body += self.prologue()
        for field in self.struct.fields:
            present = self.present(field)
            if field.is_tagged or present.empty():
                continue
            code = self.encode_field(field, present, field.member)
            body += guarded(present.condition(self.range), code,
                            self.absent_check(field, present))
        # Tagged fields absent in some versions (none today) get the check too.
        for field in self.tagged_fields():
            check = self.absent_check(field, self.present(field))
            if check and not self.present(field).covers(self.range):
                body += guarded(negate(self.present(field).condition(self.range)), check)
        if self.has_tags:
            body += guarded(self.tags_guard(), self.encode_tags())
        lines += indent(body) + ["}", ""]
        return lines

    def absent_check(self, field, present):
        """Lines run in versions lacking the field (None if nothing to do)."""
        if present.covers(self.range) or field.ignorable:
            return None
        test = is_default_expr(field, self.range, field.member)
        return [f"if ({negate(test)}) detail::throw_unsupported_field({self.name_expr}, "
                f"\"{field.name}\", version);"]

    def encode_tags(self):
        known = self.tagged_fields()
        if not known:
            return ["w.write_tagged_fields(unknown_tagged_fields);"]
        lines = ["uint32_t tag_count = static_cast<uint32_t>(unknown_tagged_fields.size());"]
        for field in known:
            lines.append(f"if ({self.tag_active(field)}) ++tag_count;")
        lines += ["w.write_uvarint(tag_count);", "size_t next_raw = 0;"]
        for field in known:
            present = self.present(field)
            lines.append(f"next_raw = w.write_raw_tags(unknown_tagged_fields, next_raw, "
                         f"{field.tag});")
            lines.append(f"if ({self.tag_active(field)}) {{")
            size_code = self.size_field(field, present, field.member, "field_size")
            lines += indent(["size_t field_size = 0;"] + size_code +
                            [f"w.write_uvarint({field.tag});",
                             "w.write_uvarint(static_cast<uint32_t>(field_size));"] +
                            self.encode_field(field, present, field.member))
            lines.append("}")
        lines.append("w.write_raw_tags(unknown_tagged_fields, next_raw, UINT64_MAX);")
        return lines

    def encode_field(self, field, present, expr):
        nullable = field.nullable & present
        compact = compact_expr(field, present, self.flex_var)
        kind = field.type.kind
        if kind == "records":
            return [f"w.write_records({expr}, {compact}, {bool_expr(nullable, present)});"]
        if not is_optional(field, self.range):
            return self.encode_value(field.type, expr, compact)
        null_code = self.encode_nullable(field, expr, compact)
        if nullable.covers(present):
            return null_code
        required = (f"detail::require_value({expr}, {self.name_expr}, \"{field.name}\", "
                    f"version)")
        plain = [f"const auto& value = {required};"] + self.encode_value(
            field.type, "value", compact)
        return [f"if ({nullable.condition(present)}) {{"] + indent(null_code) + \
            ["} else {"] + indent(plain) + ["}"]

    def encode_nullable(self, field, expr, compact):
        kind = field.type.kind
        if kind == "string":
            return [f"w.write_nullable_string({expr}, {compact});"]
        if kind == "bytes":
            return [f"w.write_nullable_bytes({expr}, {compact});"]
        if kind == "struct" and field.is_tagged:  # see decode_nullable
            return [f"if ({expr}) {{",
                    "  w.write_uvarint(1);",
                    f"  {expr}->encode(w, version);",
                    "} else {",
                    "  w.write_uvarint(0);",
                    "}"]
        if kind == "struct":
            return [f"if ({expr}) {{",
                    "  w.write_int8(1);",
                    f"  {expr}->encode(w, version);",
                    "} else {",
                    "  w.write_int8(-1);",
                    "}"]
        if kind == "array":
            return [f"if ({expr}) {{"] + indent(self.encode_value(field.type, f"(*{expr})",
                                                                  compact)) + \
                ["} else {", f"  w.write_null_array({compact});", "}"]
        raise GenError(f"{field.name}: nullable {kind} is not supported")

    def encode_value(self, ftype, expr, compact):
        kind = ftype.kind
        if kind in FIXED:
            return [f"w.write_{FIXED[kind][2]}({expr});"]
        if kind == "string":
            return [f"w.write_string({expr}, {compact});"]
        if kind == "bytes":
            return [f"w.write_bytes({expr}, {compact});"]
        if kind == "struct":
            return [f"{expr}.encode(w, version);"]
        if kind == "array":
            return [f"w.write_array_length({expr}.size(), {compact});",
                    f"for (const auto& e : {expr}) {{"] + indent(
                        self.encode_value(ftype.elem, "e", compact)) + ["}"]
        raise GenError(f"cannot encode {kind}")

    # ---- encoded_size

    def size(self):
        lines = [f"size_t {self.qualified}::encoded_size(int16_t version) const {{"]
        body = self.prologue() + ["size_t n = 0;"]
        for field in self.struct.fields:
            present = self.present(field)
            if field.is_tagged or present.empty():
                continue
            body += guarded(present.condition(self.range),
                            self.size_field(field, present, field.member, "n"))
        if self.has_tags:
            body += guarded(self.tags_guard(), self.size_tags())
        body.append("return n;")
        lines += indent(body) + ["}", ""]
        return lines

    def size_tags(self):
        known = self.tagged_fields()
        lines = ["uint32_t tag_count = static_cast<uint32_t>(unknown_tagged_fields.size());",
                 "n += raw_tagged_fields_size(unknown_tagged_fields);"]
        for field in known:
            lines.append(f"if ({self.tag_active(field)}) {{")
            lines += indent(["++tag_count;", "size_t field_size = 0;"] +
                            self.size_field(field, self.present(field), field.member,
                                            "field_size") +
                            [f"n += tagged_field_size({field.tag}, field_size);"])
            lines.append("}")
        lines.append("n += uvarint_size(tag_count);")
        return lines

    def size_field(self, field, present, expr, acc):
        nullable = field.nullable & present
        compact = compact_expr(field, present, self.flex_var)
        kind = field.type.kind
        if kind == "records":
            return [f"{acc} += records_size({expr}, {compact});"]
        if not is_optional(field, self.range):
            return self.size_value(field.type, expr, compact, acc)
        if kind == "string":
            return [f"{acc} += nullable_string_size({expr}, {compact});"]
        if kind == "bytes":
            return [f"{acc} += nullable_bytes_size({expr}, {compact});"]
        if kind == "struct":
            # The int8 presence marker exists only in nullable versions.
            marker = bool_expr(nullable, present)
            return [f"{acc} += 1;" if marker == "true" else f"if ({marker}) {acc} += 1;",
                    f"if ({expr}) {acc} += {expr}->encoded_size(version);"]
        if kind == "array":
            return [f"if ({expr}) {{"] + indent(self.size_value(field.type, f"(*{expr})",
                                                                compact, acc)) + \
                ["} else {", f"  {acc} += {compact} ? 1 : 4;", "}"]
        raise GenError(f"{field.name}: nullable {kind} is not supported")

    def size_value(self, ftype, expr, compact, acc):
        kind = ftype.kind
        if kind in FIXED:
            return [f"{acc} += {FIXED[kind][1]};"]
        if kind == "string":
            return [f"{acc} += string_size({expr}, {compact});"]
        if kind == "bytes":
            return [f"{acc} += bytes_size({expr}, {compact});"]
        if kind == "struct":
            return [f"{acc} += {expr}.encoded_size(version);"]
        if kind == "array":
            head = f"{acc} += array_length_size({expr}.size(), {compact});"
            if ftype.elem.kind in FIXED:
                return [head, f"{acc} += {expr}.size() * {FIXED[ftype.elem.kind][1]};"]
            return [head, f"for (const auto& e : {expr}) {{"] + indent(
                self.size_value(ftype.elem, "e", compact, acc)) + ["}"]
        raise GenError(f"cannot size {kind}")


def negate(test):
    """`!test`, without a double negation for simple `!x.y()` tests."""
    if test.startswith("!") and re.fullmatch(r"![\w.()]+", test):
        return test[1:]
    if re.fullmatch(r"[\w.]+(\(\))?", test):
        return f"!{test}"
    return f"!({test})"


def bool_expr(sub, present):
    """C++ bool: is the version in `sub` (a part of `present`)?"""
    if sub.empty():
        return "false"
    return sub.condition(present) or "true"


def guarded(cond, lines, else_lines=None):
    lines = [line for line in lines if line != ""]
    if cond is None:
        return lines
    out = [f"if ({cond}) {{"] + indent(lines)
    if else_lines:
        out += ["} else {"] + indent(else_lines)
    return out + ["}"]


# --------------------------------------------------------------------------
# File writers

BANNER = "// Generated by tools/gen_codec.py from {src}. Do not edit.\n"


def file_stem(msg):
    return snake_case(msg.name).rstrip("_")


def api_stem(msg):
    return re.sub(r"_(request|response)$", "", file_stem(msg))


def nested_namespace(msg):
    """Namespace holding a message's nested structs (see header_text)."""
    return file_stem(msg)


def header_text(msg):
    out = [BANNER.format(src=os.path.basename(msg.path)).rstrip(), "#pragma once", "",
           '#include "protocol/message_support.h"', "",
           "namespace skiff::protocol {", ""]
    # Nested structs live in their own namespace and are aliased into the
    # message type: defined inside it, clang could not default-construct
    # them in std::optional members before the enclosing class is complete.
    ns = nested_namespace(msg)
    if msg.order:
        out += [f"namespace {ns} {{", ""]
        for struct in msg.order:
            out += struct_decl(msg, struct, nested=True) + [""]
        out += [f"}}  // namespace {ns}", ""]
    flex = msg.flexible & msg.valid
    flex_text = "never flexible" if flex.empty() else f"flexible from v{flex.lo}"
    if msg.kind in RECORD_KINDS:
        key_text = f"{msg.kind} record type {msg.api_key}, "
    else:
        key_text = f"API key {msg.api_key}, " if msg.api_key >= 0 else ""
    out.append(f"// {msg.name}: {key_text}versions {msg.valid.lo}-{msg.valid.hi}, {flex_text}.")
    out.append("// A plain value type; not synchronised.")
    if any(f.type.kind == "records" for st in msg.order + [msg.root] for f in st.fields):
        out.append("// Zero copy: decoded `records` fields view the input bytes, which")
        out.append("// must outlive this message.")
    out.append(f"struct {msg.name} {{")
    body = [f"static constexpr int16_t kApiKey = {msg.api_key};",
            f"static constexpr bool kIsRequest = {'true' if msg.kind == 'request' else 'false'};",
            f"static constexpr std::string_view kName = \"{msg.name}\";",
            f"static constexpr int16_t kMinVersion = {msg.valid.lo};",
            f"static constexpr int16_t kMaxVersion = {msg.valid.hi};",
            "static constexpr int16_t kFirstFlexibleVersion = "
            f"{-1 if flex.empty() else msg.flexible.lo};", ""]
    for struct in msg.order:
        body.append(f"using {struct.name} = {ns}::{struct.name};")
    if msg.order:
        body.append("")
    body += struct_decl(msg, msg.root, nested=False)
    out += indent(body) + ["};", "", "}  // namespace skiff::protocol", ""]
    return "\n".join(out)


def is_error_code(field):
    return field.member == "error_code" and field.type.kind == "int16"


def holds_errors(struct):
    """Whether a struct has an ErrorCode field, itself or in a struct it holds."""
    return any(is_error_code(f) or (f.struct is not None and holds_errors(f.struct)) for f in struct.fields)


def error_visitor(struct, rng):
    """A response struct's for_each_error_code: every ErrorCode it holds, in
    nested structs too (what Kafka's AbstractResponse.errorCounts counts)."""
    body = []
    for field in struct.fields:
        if (field.versions & rng).empty():
            continue
        opt = is_optional(field, rng)
        if is_error_code(field):
            body.append(f"f({field.member});")
        elif field.struct is not None and holds_errors(field.struct):
            src = f"*{field.member}" if opt else field.member
            if field.type.kind == "array":
                line = f"for (const auto& e : {src}) e.for_each_error_code(f);"
            else:
                line = f"{field.member}{'->' if opt else '.'}for_each_error_code(f);"
            body.append(f"if ({field.member}) {line}" if opt else line)
    head = ["// Calls f(code) for every error code held (Kafka's errorCounts).", "template <class F>"]
    if not body:
        return head + ["void for_each_error_code(F&&) const {}"]
    return head + ["void for_each_error_code(F&& f) const {"] + indent(body) + ["}"]


def equality(name, fields, tagged):
    """operator==: defaulted, unless a float64 field needs same_float64."""
    if not any(f.type.kind == "float64" for f in fields):
        return [f"bool operator==(const {name}&) const = default;"]
    terms = [f"same_float64({f.member}, o.{f.member})" if f.type.kind == "float64"
             else f"{f.member} == o.{f.member}" for f in fields]
    if tagged:
        terms.append("unknown_tagged_fields == o.unknown_tagged_fields")
    lines = [("  return " if i == 0 else "         ") + t + (";" if i == len(terms) - 1 else " &&")
             for i, t in enumerate(terms)]
    return [f"bool operator==(const {name}& o) const {{"] + lines + ["}"]


def struct_decl(msg, struct, nested):
    rng = struct.versions & msg.valid
    lines = [f"struct {struct.name} {{"] if nested else []
    members = []
    served = [f for f in struct.fields if not (f.versions & rng).empty()]
    for field in served:
        init = default_value(field, rng)
        ctype = cpp_type(field, rng)
        members.append(f"{ctype} {field.member}" + (f" = {init};" if init else "{};"))
    if not (msg.flexible & rng).empty():
        members.append("TaggedFields unknown_tagged_fields;")
    members += [
        "",
        "void decode(ByteReader& r, int16_t version);",
        "void encode(ByteWriter& w, int16_t version) const;",
        "size_t encoded_size(int16_t version) const;",
    ] + equality(struct.name, served, not (msg.flexible & rng).empty())
    if msg.kind == "response" and (not nested or holds_errors(struct)):
        members += error_visitor(struct, rng)
    if nested:
        return lines + indent(members) + ["};"]
    return members


def source_text(msgs, include="protocol/generated"):
    records = all(m.kind in RECORD_KINDS for m in msgs)
    out = [BANNER.format(src=", ".join(os.path.basename(m.path) for m in msgs)).rstrip()]
    for msg in msgs:
        out.append(f'#include "{include}/{file_stem(msg)}.h"')
    if not records:
        out.append('#include "protocol/any_message.h"')
    out += ["", "namespace skiff::protocol {", ""]
    for msg in msgs:
        for struct in msg.order + [msg.root]:
            emitter = StructEmitter(msg, struct)
            out += emitter.decode() + emitter.encode() + emitter.size()
        if msg.kind != "header" and not records:
            out += [f"std::unique_ptr<AnyMessage> make_{file_stem(msg)}() {{",
                    f"  return std::make_unique<MessageHolder<{msg.name}>>();", "}", ""]
    out += ["}  // namespace skiff::protocol", ""]
    return "\n".join(out)


def api_table_text(pairs, req_header, resp_header):
    out = [BANNER.format(src="protocol/schemas").rstrip(),
           '#include "protocol/api_table.h"', "", "#include <algorithm>", "",
           "namespace skiff::protocol {", "", "namespace {", "",
           "constexpr ApiInfo kApis[] = {"]
    for req, _ in pairs:
        first_flex = -1 if (req.flexible & req.valid).empty() else req.flexible.lo
        name = req.name[: -len("Request")]
        out.append(f"    {{{req.api_key}, \"{name}\", {req.valid.lo}, {req.valid.hi}, "
                   f"{first_flex}}},")
    out += ["};", "", "}  // namespace", "",
            "std::span<const ApiInfo> all_apis() { return kApis; }", "",
            "const ApiInfo* find_api(int16_t api_key) {",
            "  auto it = std::lower_bound(std::begin(kApis), std::end(kApis), api_key,",
            "                             [](const ApiInfo& a, int16_t k) { return a.key < k; });",
            "  return (it != std::end(kApis) && it->key == api_key) ? &*it : nullptr;",
            "}", "",
            "int16_t request_header_version(int16_t api_key, int16_t api_version) {",
            "  const ApiInfo* api = find_api(api_key);",
            "  if (api == nullptr) return -1;",
            f"  return api->is_flexible(api_version) ? {req_header.flexible.lo} : 1;",
            "}", "",
            "int16_t response_header_version(int16_t api_key, int16_t api_version) {",
            "  const ApiInfo* api = find_api(api_key);",
            "  if (api == nullptr) return -1;",
            "  // ApiVersions answers in header v0 so a client can always parse it.",
            "  if (api_key == 18) return 0;",
            f"  return api->is_flexible(api_version) ? {resp_header.flexible.lo} : 0;",
            "}", "", "}  // namespace skiff::protocol", ""]
    return "\n".join(out)


def registry_text(pairs):
    out = [BANNER.format(src="protocol/schemas").rstrip(),
           '#include "protocol/any_message.h"', "", "namespace skiff::protocol {", ""]
    for req, resp in pairs:
        out.append(f"std::unique_ptr<AnyMessage> make_{file_stem(req)}();")
        out.append(f"std::unique_ptr<AnyMessage> make_{file_stem(resp)}();")
    for kind, idx in (("request", 0), ("response", 1)):
        out += ["", f"std::unique_ptr<AnyMessage> make_{kind}(int16_t api_key) {{",
                "  switch (api_key) {"]
        for pair in pairs:
            out.append(f"    case {pair[idx].api_key}: return make_{file_stem(pair[idx])}();")
        out += ["    default: return nullptr;", "  }", "}"]
    out += ["", "}  // namespace skiff::protocol", ""]
    return "\n".join(out)


def all_headers_text(pairs):
    out = [BANNER.format(src="protocol/schemas").rstrip(), "#pragma once", ""]
    for req, resp in pairs:
        out.append(f'#include "protocol/generated/{file_stem(req)}.h"')
        out.append(f'#include "protocol/generated/{file_stem(resp)}.h"')
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------
# Test-only random fill


class FillEmitter:
    """Emits `fill(T&, FillContext&, version)` that sets every field present
    in `version` to a random value valid for it (nulls only where allowed)."""

    def __init__(self, msg, struct):
        self.msg = msg
        self.struct = struct
        self.range = struct.versions & msg.valid

    def emit(self):
        q = self.msg.name if self.struct is self.msg.root else \
            f"{nested_namespace(self.msg)}::{self.struct.name}"
        lines = [f"void fill({q}& x, FillContext& ctx, int16_t version) {{"]
        body = []
        for field in self.struct.fields:
            present = field.versions & self.range
            if present.empty():
                continue
            code = self.fill_field(field, present, f"x.{field.member}")
            body += guarded(present.condition(self.range), code)
        if not (self.msg.flexible & self.range).empty():
            body += guarded(f"version >= {self.msg.flexible.lo}",
                            ["ctx.fill_unknown_tags(x.unknown_tagged_fields);"])
        return lines + indent(body) + ["}", ""]

    def fill_field(self, field, present, expr):
        nullable = field.nullable & present
        kind = field.type.kind
        if kind == "records":
            return [f"{expr} = ctx.records({bool_expr(nullable, present)});"]
        if not is_optional(field, self.range):
            return self.fill_value(field.type, expr)
        value = [f"{expr}.emplace();"] + self.fill_value(field.type, f"(*{expr})")
        if nullable.empty():
            return value
        cond = bool_expr(nullable, present)
        chance = "ctx.chance(5)" if cond == "true" else f"({cond}) && ctx.chance(5)"
        return [f"if ({chance}) {{",
                f"  {expr}.reset();", "} else {"] + indent(value) + ["}"]

    def fill_value(self, ftype, expr):
        kind = ftype.kind
        if kind in FIXED:
            return [f"ctx.fill({expr});"]
        if kind in ("string", "bytes"):
            return [f"ctx.fill({expr});"]
        if kind == "struct":
            return [f"fill({expr}, ctx, version);"]
        if kind == "array":
            return [f"{expr}.resize(ctx.count());", f"for (auto& e : {expr}) {{"] + \
                indent(self.fill_value(ftype.elem, "e")) + ["}"]
        raise GenError(f"cannot fill {kind}")


def fill_source_text(pair):
    out = [BANNER.format(src="protocol/schemas").rstrip(),
           '#include "protocol/testing/random_fill.h"', ""]
    for msg in pair:
        out.append(f'#include "protocol/generated/{file_stem(msg)}.h"')
    out += ["", "namespace skiff::protocol::testing {", "", "namespace {", ""]
    for msg in pair:
        for struct in msg.order + [msg.root]:
            out += FillEmitter(msg, struct).emit()
    out += ["}  // namespace", ""]
    for msg in pair:
        out += [f"void fill_{file_stem(msg)}(AnyMessage& m, FillContext& ctx, int16_t version) {{",
                f"  fill(*m.as<{msg.name}>(), ctx, version);", "}", "",
                f"bool equal_{file_stem(msg)}(const AnyMessage& a, const AnyMessage& b) {{",
                f"  const auto* x = a.as<{msg.name}>();",
                f"  const auto* y = b.as<{msg.name}>();",
                "  return x != nullptr && y != nullptr && *x == *y;", "}", ""]
    out += ["}  // namespace skiff::protocol::testing", ""]
    return "\n".join(out)


def fill_registry_text(pairs):
    out = [BANNER.format(src="protocol/schemas").rstrip(),
           '#include "protocol/testing/random_fill.h"', "",
           "namespace skiff::protocol::testing {", ""]
    for pair in pairs:
        for msg in pair:
            out.append(f"void fill_{file_stem(msg)}(AnyMessage&, FillContext&, int16_t);")
            out.append(f"bool equal_{file_stem(msg)}(const AnyMessage&, const AnyMessage&);")
    out += ["", "void random_fill(AnyMessage& m, FillContext& ctx, int16_t version) {",
            "  switch (m.api_key()) {"]
    for req, resp in pairs:
        out.append(f"    case {req.api_key}:")
        out.append(f"      return m.is_request() ? fill_{file_stem(req)}(m, ctx, version)")
        out.append(f"                            : fill_{file_stem(resp)}(m, ctx, version);")
    out += ["  }", "}", "", "bool messages_equal(const AnyMessage& a, const AnyMessage& b) {",
            "  switch (a.api_key()) {"]
    for req, resp in pairs:
        out.append(f"    case {req.api_key}:")
        out.append(f"      return a.is_request() ? equal_{file_stem(req)}(a, b)")
        out.append(f"                            : equal_{file_stem(resp)}(a, b);")
    out += ["    default:", "      return false;", "  }", "}", "",
            "}  // namespace skiff::protocol::testing", ""]
    return "\n".join(out)


# --------------------------------------------------------------------------


def load(schemas):
    msgs = {}
    for name in sorted(os.listdir(schemas)):
        if name.endswith(".json"):
            msg = Message(os.path.join(schemas, name))
            msgs[msg.name] = msg
    pairs = []
    for name, req in msgs.items():
        if req.kind == "request":
            resp = msgs.get(name[: -len("Request")] + "Response")
            if resp is None or resp.api_key != req.api_key:
                raise GenError(f"{name}: no matching response schema")
            pairs.append((req, resp))
    pairs.sort(key=lambda p: p[0].api_key)
    return msgs, pairs


def write_if_changed(path, text):
    """Writes `text`; always touches the file so that make sees it is newer
    than the generator and the schemas (CMake lists these as OUTPUTs)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.exists(path):
        with open(path, encoding="utf-8") as fh:
            if fh.read() == text:
                os.utime(path)
                return
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


def outputs(pairs):
    """Generated file names relative to --out (CMake asks with --list)."""
    files = ["request_header.h", "response_header.h", "headers.cc", "api_table.cc",
             "registry.cc", "all_messages.h", "fill/fill_registry.cc"]
    for req, resp in pairs:
        stem = api_stem(req)
        files += [f"{file_stem(req)}.h", f"{file_stem(resp)}.h", f"{stem}.cc",
                  f"fill/{stem}_fill.cc"]
    return files


def load_records(schemas):
    msgs = []
    for name in sorted(os.listdir(schemas)):
        if name.endswith(".json"):
            msg = Message(os.path.join(schemas, name))
            if msg.kind not in RECORD_KINDS:
                raise GenError(f"{name}: type {msg.kind} is not a coordinator record")
            msgs.append(msg)
    return msgs


def records_main(args):
    """--records: one header and one source per coordinator record schema."""
    try:
        msgs = load_records(args.schemas)
    except (GenError, KeyError, ValueError) as err:
        sys.exit(f"gen_codec: {err}")
    if args.list:
        print(";".join(f"{file_stem(m)}{ext}" for m in msgs for ext in (".h", ".cc")))
        return
    for msg in msgs:
        write_if_changed(os.path.join(args.out, f"{file_stem(msg)}.h"), header_text(msg))
        write_if_changed(os.path.join(args.out, f"{file_stem(msg)}.cc"),
                         source_text([msg], args.include))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--schemas", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--list", action="store_true", help="print output files and exit")
    parser.add_argument("--records", action="store_true",
                        help="generate coordinator records, not the wire codec")
    parser.add_argument("--include", default="protocol/generated",
                        help="include path of --out (with --records)")
    args = parser.parse_args()
    if args.records:
        records_main(args)
        return
    try:
        msgs, pairs = load(args.schemas)
    except (GenError, KeyError, ValueError) as err:
        sys.exit(f"gen_codec: {err}")
    if args.list:
        print(";".join(outputs(pairs)))
        return
    out = args.out
    headers = [msgs["RequestHeader"], msgs["ResponseHeader"]]
    for msg in headers:
        write_if_changed(os.path.join(out, f"{file_stem(msg)}.h"), header_text(msg))
    write_if_changed(os.path.join(out, "headers.cc"), source_text(headers))
    for req, resp in pairs:
        stem = api_stem(req)
        write_if_changed(os.path.join(out, f"{file_stem(req)}.h"), header_text(req))
        write_if_changed(os.path.join(out, f"{file_stem(resp)}.h"), header_text(resp))
        write_if_changed(os.path.join(out, f"{stem}.cc"), source_text([req, resp]))
        write_if_changed(os.path.join(out, "fill", f"{stem}_fill.cc"),
                         fill_source_text((req, resp)))
    write_if_changed(os.path.join(out, "api_table.cc"),
                     api_table_text(pairs, *headers))
    write_if_changed(os.path.join(out, "registry.cc"), registry_text(pairs))
    write_if_changed(os.path.join(out, "all_messages.h"), all_headers_text(pairs))
    write_if_changed(os.path.join(out, "fill", "fill_registry.cc"), fill_registry_text(pairs))


if __name__ == "__main__":
    main()
