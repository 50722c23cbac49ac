// The Avro oracle: generates schema pairs by systematic mutation of a few
// base schemas, and writes what Apache Avro Java 1.12 decides for each one
// (Schema.toString() of every schema, SchemaCompatibility's verdict and
// incompatibilities in both directions of every pair, the parse error of
// every schema it refuses) to a line-based text file that Skiff's C++ tests
// (tests/schema/avro/avro_oracle_test.cc) check against. Schemas are parsed
// as Confluent's AvroSchema parses a schema being registered: the strict name
// validator and default validation on. Each incompatibility is written as
// Confluent's AvroSchema.isBackwardCompatible words it (the "%s" left for
// the registry's "new"/"old"). Run by generate.sh; deterministic.
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.TokenBuffer;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.avro.JsonProperties;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.avro.NameValidator;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.SchemaCompatibility.Incompatibility;
import org.apache.avro.SchemaCompatibility.SchemaCompatibilityType;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.io.JsonEncoder;

public final class AvroOracle {
  static final ObjectMapper M = new ObjectMapper();
  static final JsonNodeFactory F = JsonNodeFactory.instance;

  final Map<String, Integer> ids = new LinkedHashMap<>();
  final List<String> texts = new ArrayList<>();
  final List<Schema> parsed = new ArrayList<>();
  final List<String> errors = new ArrayList<>();
  final List<int[]> pairs = new ArrayList<>();

  static JsonNode j(String s) {
    try {
      return M.readTree(s);
    } catch (Exception e) {
      throw new RuntimeException(s, e);
    }
  }

  int add(String text) {
    Integer id = ids.get(text);
    if (id != null) return id;
    id = texts.size();
    ids.put(text, id);
    texts.add(text);
    try {
      Schema.Parser parser = new Schema.Parser(NameValidator.STRICT_VALIDATOR);
      parser.setValidateDefaults(true);
      parsed.add(parser.parse(text));
      errors.add(null);
    } catch (Exception e) {
      parsed.add(null);
      errors.add(String.valueOf(e.getMessage()).replace("\n", "\\n"));
    }
    return id;
  }

  int add(JsonNode n) {
    return add(n.toString());
  }

  void pair(int a, int b) {
    if (a == b || parsed.get(a) == null || parsed.get(b) == null) return;
    pairs.add(new int[] {a, b});
  }

  // ---- the mutation vocabulary -------------------------------------------

  static final String[] TYPE_VARIANTS = {
    "\"null\"", "\"boolean\"", "\"int\"", "\"long\"", "\"float\"", "\"double\"", "\"bytes\"", "\"string\"",
    "[\"null\",\"string\"]", "[\"null\",\"int\"]", "[\"int\",\"string\"]", "[\"null\",\"long\",\"string\"]",
    "[\"string\",\"null\"]", "[\"null\",\"double\"]",
    "{\"type\":\"array\",\"items\":\"int\"}", "{\"type\":\"array\",\"items\":\"long\"}",
    "{\"type\":\"array\",\"items\":\"string\"}", "{\"type\":\"map\",\"values\":\"int\"}",
    "{\"type\":\"map\",\"values\":\"double\"}", "{\"type\":\"map\",\"values\":[\"null\",\"float\"]}",
    "{\"type\":\"enum\",\"name\":\"VE\",\"symbols\":[\"A\",\"B\",\"C\"]}",
    "{\"type\":\"enum\",\"name\":\"VE\",\"symbols\":[\"A\",\"B\"]}",
    "{\"type\":\"enum\",\"name\":\"VE\",\"symbols\":[\"A\",\"B\"],\"default\":\"A\"}",
    "{\"type\":\"enum\",\"name\":\"VE2\",\"symbols\":[\"A\",\"B\",\"C\"]}",
    "{\"type\":\"fixed\",\"name\":\"VF\",\"size\":4}", "{\"type\":\"fixed\",\"name\":\"VF\",\"size\":8}",
    "{\"type\":\"fixed\",\"name\":\"VF2\",\"size\":4}",
    "{\"type\":\"record\",\"name\":\"VSub\",\"fields\":[{\"name\":\"x\",\"type\":\"int\"}]}",
    "{\"type\":\"record\",\"name\":\"VSub\",\"fields\":[{\"name\":\"x\",\"type\":\"long\"}]}",
    "{\"type\":\"record\",\"name\":\"VSub\",\"fields\":[{\"name\":\"x\",\"type\":\"int\"},{\"name\":\"y\",\"type\":\"string\",\"default\":\"\"}]}",
    "{\"type\":\"record\",\"name\":\"VSub\",\"namespace\":\"other.ns\",\"fields\":[{\"name\":\"x\",\"type\":\"int\"}]}",
    "{\"type\":\"int\",\"logicalType\":\"date\"}", "{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}",
    "{\"type\":\"long\",\"logicalType\":\"local-timestamp-micros\"}",
    "{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":10,\"scale\":2}",
    "{\"type\":\"string\",\"logicalType\":\"uuid\"}", "{\"type\":\"string\",\"avro.java.string\":\"String\"}",
    "{\"type\":\"array\",\"items\":[\"null\",{\"type\":\"record\",\"name\":\"VItem\",\"fields\":[{\"name\":\"k\",\"type\":\"string\"}]}]}",
  };

  // A default value valid for `type`, or null when none is written.
  static JsonNode defaultFor(JsonNode type, int flavour) {
    if (type.isArray()) return type.size() == 0 ? null : defaultFor(type.get(0), flavour);
    String t = type.isTextual() ? type.textValue() : type.path("type").asText();
    switch (t) {
      case "null": return F.nullNode();
      case "boolean": return F.booleanNode(flavour % 2 == 0);
      case "int": return flavour % 2 == 0 ? F.numberNode(7) : F.numberNode(-0);
      case "long": return flavour % 2 == 0 ? F.numberNode(12345678901L) : F.numberNode(3);
      case "float": return flavour % 3 == 0 ? j("1.5") : flavour % 3 == 1 ? j("2") : j("1e3");
      case "double": return flavour % 4 == 0 ? j("2.0") : flavour % 4 == 1 ? j("1E-4") : flavour % 4 == 2 ? j("100000000.5") : j("-3");
      case "bytes": return F.textNode(flavour % 2 == 0 ? "\u00ff\u0000" : "");
      case "string": return F.textNode(flavour % 2 == 0 ? "hi \"there\"\n" : "");
      case "array": return flavour % 2 == 0 ? F.arrayNode() : null;
      case "map": return F.objectNode();
      case "enum": return type.get("symbols").get(type.get("symbols").size() - 1);
      case "fixed": return F.textNode("abcdefgh".substring(0, Math.min(8, type.get("size").asInt())));
      case "record": {
        ObjectNode o = F.objectNode();
        for (JsonNode f : type.get("fields")) {
          JsonNode d = defaultFor(f.get("type"), flavour);
          if (d == null) return null;
          if (!f.has("default")) o.set(f.get("name").asText(), d);
        }
        return o;
      }
      default: return null;
    }
  }

  static ObjectNode copy(JsonNode n) {
    return (ObjectNode) n.deepCopy();
  }

  static ArrayNode fields(ObjectNode rec) {
    return (ArrayNode) rec.get("fields");
  }

  // Every mutant of a record schema `base`.
  List<JsonNode> mutants(JsonNode base) {
    List<JsonNode> out = new ArrayList<>();
    int n = base.get("fields").size();
    for (int i = 0; i < n; i++) {
      ObjectNode m = copy(base);
      fields(m).remove(i);
      out.add(m);
      ObjectNode f = (ObjectNode) base.get("fields").get(i);
      ObjectNode d = copy(base);
      ObjectNode df = (ObjectNode) fields(d).get(i);
      if (f.has("default")) {
        df.remove("default");
      } else {
        JsonNode def = defaultFor(f.get("type"), i);
        if (def == null) continue;
        df.set("default", def);
      }
      out.add(d);
      for (int k = 0; k < 2; k++) {
        ObjectNode r = copy(base);
        ObjectNode rf = (ObjectNode) fields(r).get(i);
        rf.put("name", "renamed_" + i);
        if (k == 1) rf.set("aliases", F.arrayNode().add(f.get("name").asText()));
        out.add(r);
      }
      for (int v = 0; v < TYPE_VARIANTS.length; v++) {
        ObjectNode t = copy(base);
        ObjectNode tf = (ObjectNode) fields(t).get(i);
        JsonNode type = j(TYPE_VARIANTS[v]);
        tf.set("type", type);
        tf.remove("default");
        if ((v + i) % 3 == 0) {
          JsonNode def = defaultFor(type, v);
          if (def != null) tf.set("default", def);
        }
        out.add(t);
      }
      out.addAll(typeMutants(base, i));
    }
    for (int v = 0; v < TYPE_VARIANTS.length; v++) {
      for (int withDefault = 0; withDefault < 2; withDefault++) {
        ObjectNode a = copy(base);
        ObjectNode nf = F.objectNode();
        nf.put("name", "extra");
        JsonNode type = j(TYPE_VARIANTS[v]);
        nf.set("type", type);
        if (withDefault == 1) {
          JsonNode def = defaultFor(type, v);
          if (def == null) continue;
          nf.set("default", def);
        }
        fields(a).add(nf);
        out.add(a);
      }
    }
    String name = base.get("name").asText();
    String space = base.has("namespace") ? base.get("namespace").asText() : null;
    String full = space == null ? name : space + "." + name;
    ObjectNode r1 = copy(base);
    r1.put("name", "Renamed");
    out.add(r1);
    ObjectNode r2 = copy(base);
    r2.put("name", "Renamed");
    r2.set("aliases", F.arrayNode().add(full));
    out.add(r2);
    ObjectNode r3 = copy(base);
    r3.put("namespace", "moved.elsewhere");
    out.add(r3);
    ObjectNode r4 = copy(base);
    r4.put("doc", "documented");
    r4.put("owner", "team-a");
    out.add(r4);
    return out;
  }

  // Mutants of field i's type when it is an enum, fixed, record, union,
  // array or map.
  List<JsonNode> typeMutants(JsonNode base, int i) {
    List<JsonNode> out = new ArrayList<>();
    JsonNode type = base.get("fields").get(i).get("type");
    List<JsonNode> variants = new ArrayList<>();
    if (type.isArray()) {
      ArrayNode grown = type.deepCopy();
      for (String extra : new String[] {"\"long\"", "\"bytes\"", "\"boolean\""}) {
        boolean has = false;
        for (JsonNode b : type) has |= b.equals(j(extra));
        if (!has) {
          grown.add(j(extra));
          break;
        }
      }
      variants.add(grown);
      if (type.size() > 1) {
        ArrayNode shrunk = type.deepCopy();
        shrunk.remove(type.size() - 1);
        variants.add(shrunk);
        ArrayNode reordered = F.arrayNode();
        for (int k = type.size() - 1; k >= 0; k--) reordered.add(type.get(k));
        variants.add(reordered);
        for (JsonNode b : type)
          if (!b.equals(j("\"null\""))) variants.add(b);
      }
    } else if (type.isObject()) {
      String t = type.get("type").asText();
      ObjectNode o = (ObjectNode) type;
      if (t.equals("enum")) {
        ArrayNode syms = (ArrayNode) o.get("symbols");
        ObjectNode addEnd = o.deepCopy();
        ((ArrayNode) addEnd.get("symbols")).add("ZZ");
        variants.add(addEnd);
        ObjectNode addStart = o.deepCopy();
        ((ArrayNode) addStart.get("symbols")).insert(0, "AA");
        variants.add(addStart);
        if (syms.size() > 1) {
          ObjectNode removed = o.deepCopy();
          ((ArrayNode) removed.get("symbols")).remove(syms.size() - 1);
          variants.add(removed);
          ObjectNode removedWithDefault = removed.deepCopy();
          removedWithDefault.set("default", syms.get(0));
          variants.add(removedWithDefault);
        }
        ObjectNode withDefault = o.deepCopy();
        if (withDefault.has("default")) withDefault.remove("default");
        else withDefault.set("default", syms.get(0));
        variants.add(withDefault);
        ObjectNode renamed = o.deepCopy();
        renamed.put("name", "RenamedEnum");
        variants.add(renamed);
        ObjectNode aliased = renamed.deepCopy();
        aliased.set("aliases", F.arrayNode().add(o.get("name").asText()));
        variants.add(aliased);
      } else if (t.equals("fixed")) {
        ObjectNode bigger = o.deepCopy();
        bigger.put("size", o.get("size").asInt() + 1);
        variants.add(bigger);
        ObjectNode renamed = o.deepCopy();
        renamed.put("name", "RenamedFixed");
        variants.add(renamed);
        ObjectNode aliased = renamed.deepCopy();
        aliased.set("aliases", F.arrayNode().add(o.get("name").asText()));
        variants.add(aliased);
      } else if (t.equals("record")) {
        ObjectNode added = o.deepCopy();
        fields(added).add(j("{\"name\":\"nested_new\",\"type\":\"int\"}"));
        variants.add(added);
        ObjectNode addedDefault = o.deepCopy();
        fields(addedDefault).add(j("{\"name\":\"nested_new\",\"type\":\"int\",\"default\":0}"));
        variants.add(addedDefault);
        if (o.get("fields").size() > 0) {
          ObjectNode removed = o.deepCopy();
          fields(removed).remove(0);
          variants.add(removed);
          ObjectNode promoted = o.deepCopy();
          ((ObjectNode) fields(promoted).get(0)).set("type", j("[\"null\",\"double\",\"string\"]"));
          ((ObjectNode) fields(promoted).get(0)).remove("default");
          variants.add(promoted);
        }
        ObjectNode renamed = o.deepCopy();
        renamed.put("name", "RenamedRecord");
        variants.add(renamed);
        ObjectNode aliased = renamed.deepCopy();
        aliased.set("aliases", F.arrayNode().add(o.get("name").asText()));
        variants.add(aliased);
      } else if (t.equals("array") || t.equals("map")) {
        String key = t.equals("array") ? "items" : "values";
        for (String inner : new String[] {"\"long\"", "\"double\"", "\"string\"", "[\"null\",\"int\"]", "\"bytes\""}) {
          ObjectNode changed = o.deepCopy();
          changed.set(key, j(inner));
          variants.add(changed);
        }
      }
    }
    for (JsonNode v : variants) {
      ObjectNode m = copy(base);
      ObjectNode f = (ObjectNode) fields(m).get(i);
      f.set("type", v);
      f.remove("default");
      out.add(m);
    }
    return out;
  }

  // ---- the corpus --------------------------------------------------------

  static final String[] BASES = {
    "{\"type\":\"record\",\"name\":\"User\",\"namespace\":\"com.acme\",\"doc\":\"A user\",\"fields\":["
        + "{\"name\":\"id\",\"type\":\"int\"},{\"name\":\"name\",\"type\":\"string\",\"doc\":\"full name\"},"
        + "{\"name\":\"email\",\"type\":[\"null\",\"string\"],\"default\":null},"
        + "{\"name\":\"score\",\"type\":\"float\",\"default\":1.0}]}",
    "{\"type\":\"record\",\"name\":\"Order\",\"fields\":["
        + "{\"name\":\"status\",\"type\":{\"type\":\"enum\",\"name\":\"Status\",\"symbols\":[\"NEW\",\"PAID\",\"SHIPPED\"]}},"
        + "{\"name\":\"hash\",\"type\":{\"type\":\"fixed\",\"name\":\"Hash\",\"size\":16}},"
        + "{\"name\":\"lines\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"Line\",\"fields\":["
        + "{\"name\":\"sku\",\"type\":\"string\"},{\"name\":\"qty\",\"type\":\"int\",\"default\":1}]}}},"
        + "{\"name\":\"attrs\",\"type\":{\"type\":\"map\",\"values\":\"long\"},\"default\":{}}]}",
    "{\"type\":\"record\",\"name\":\"Event\",\"namespace\":\"org.example.events\",\"fields\":["
        + "{\"name\":\"at\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}},"
        + "{\"name\":\"amount\",\"type\":{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":9,\"scale\":2}},"
        + "{\"name\":\"payload\",\"type\":[\"null\",\"string\",\"bytes\"],\"default\":null},"
        + "{\"name\":\"source\",\"type\":{\"type\":\"record\",\"name\":\"Source\",\"namespace\":\"org.example.common\","
        + "\"fields\":[{\"name\":\"host\",\"type\":\"string\"},{\"name\":\"port\",\"type\":\"int\",\"default\":80}]}}]}",
    "{\"type\":\"record\",\"name\":\"Node\",\"fields\":[{\"name\":\"value\",\"type\":\"long\"},"
        + "{\"name\":\"next\",\"type\":[\"null\",\"Node\"],\"default\":null}]}",
    "{\"type\":\"record\",\"name\":\"Metrics\",\"namespace\":\"m\",\"fields\":["
        + "{\"name\":\"count\",\"type\":\"long\",\"default\":0,\"order\":\"descending\"},"
        + "{\"name\":\"ratio\",\"type\":\"double\",\"default\":0.5,\"aliases\":[\"rate\"]},"
        + "{\"name\":\"tags\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[\"a\",\"b\"]},"
        + "{\"name\":\"kind\",\"type\":{\"type\":\"enum\",\"name\":\"Kind\",\"symbols\":[\"GAUGE\",\"COUNTER\"],\"default\":\"GAUGE\"}}]}",
    "{\"type\":\"record\",\"name\":\"Wide\",\"fields\":[{\"name\":\"b\",\"type\":\"boolean\"},{\"name\":\"i\",\"type\":\"int\"},"
        + "{\"name\":\"l\",\"type\":\"long\"},{\"name\":\"f\",\"type\":\"float\"},{\"name\":\"d\",\"type\":\"double\"},"
        + "{\"name\":\"by\",\"type\":\"bytes\"},{\"name\":\"s\",\"type\":\"string\"},{\"name\":\"n\",\"type\":\"null\"}]}",
  };

  // Hand-written pairs for what mutation does not reach.
  static final String[][] EXTRA_PAIRS = {
    {"\"int\"", "\"long\""}, {"\"float\"", "\"double\""}, {"\"string\"", "\"bytes\""}, {"\"int\"", "[\"int\",\"null\"]"},
    {"[\"int\",\"string\"]", "[\"long\",\"bytes\"]"}, {"[\"null\"]", "\"null\""}, {"[]", "[]"}, {"[]", "\"int\""},
    {"{\"type\":\"map\",\"values\":[\"int\",\"string\"]}", "{\"type\":\"map\",\"values\":\"long\"}"},
    {"{\"type\":\"array\",\"items\":{\"type\":\"array\",\"items\":\"int\"}}", "{\"type\":\"array\",\"items\":{\"type\":\"array\",\"items\":\"float\"}}"},
    {"{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\"],\"default\":\"A\"}", "{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"B\",\"C\",\"A\"]}"},
    {"{\"type\":\"enum\",\"name\":\"a.E\",\"symbols\":[\"A\"]}", "{\"type\":\"enum\",\"name\":\"b.E\",\"symbols\":[\"A\"]}"},
    {"{\"type\":\"enum\",\"name\":\"a.E\",\"aliases\":[\"b.F\"],\"symbols\":[\"A\"]}", "{\"type\":\"enum\",\"name\":\"b.F\",\"symbols\":[\"A\"]}"},
    {"{\"type\":\"enum\",\"name\":\"E\",\"namespace\":\"a\",\"aliases\":[\"F\"],\"symbols\":[\"A\"]}", "{\"type\":\"enum\",\"name\":\"F\",\"symbols\":[\"A\"]}"},
    {"{\"type\":\"enum\",\"name\":\"E\",\"namespace\":\"a\",\"aliases\":[\".F\"],\"symbols\":[\"A\"]}", "{\"type\":\"enum\",\"name\":\"F\",\"symbols\":[\"A\"]}"},
    {"{\"type\":\"fixed\",\"name\":\"F\",\"size\":2}", "{\"type\":\"fixed\",\"name\":\"G\",\"size\":3}"},
    {"{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"int\",\"aliases\":[\"b\"]}]}", "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"},{\"name\":\"b\",\"type\":\"int\"}]}"},
    {"{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"e\",\"type\":{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\"],\"default\":\"A\"}}]}", "{\"type\":\"record\",\"name\":\"R\",\"fields\":[]}"},
    {"{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"x\",\"type\":{\"type\":\"record\",\"name\":\"S\",\"fields\":[{\"name\":\"v\",\"type\":\"int\"}]}},{\"name\":\"y\",\"type\":\"S\"}]}",
     "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"x\",\"type\":{\"type\":\"record\",\"name\":\"S\",\"fields\":[{\"name\":\"v\",\"type\":\"string\"}]}},{\"name\":\"y\",\"type\":\"S\"}]}"},
    {"{\"type\":\"record\",\"name\":\"T\",\"fields\":[{\"name\":\"kids\",\"type\":{\"type\":\"array\",\"items\":\"T\"}},{\"name\":\"v\",\"type\":\"int\"}]}",
     "{\"type\":\"record\",\"name\":\"T\",\"fields\":[{\"name\":\"kids\",\"type\":{\"type\":\"array\",\"items\":\"T\"}},{\"name\":\"v\",\"type\":\"string\"}]}"},
    {"[\"null\",{\"type\":\"record\",\"name\":\"A\",\"fields\":[{\"name\":\"b\",\"type\":[\"null\",\"B\"]}]},{\"type\":\"record\",\"name\":\"B\",\"fields\":[{\"name\":\"a\",\"type\":[\"null\",\"A\"]}]}]",
     "[\"null\",{\"type\":\"record\",\"name\":\"A\",\"fields\":[{\"name\":\"b\",\"type\":[\"null\",\"B\"]},{\"name\":\"c\",\"type\":\"int\"}]},{\"type\":\"record\",\"name\":\"B\",\"fields\":[{\"name\":\"a\",\"type\":[\"null\",\"A\"]}]}]"},
    {"{\"type\":\"record\",\"name\":\"R\",\"namespace\":\"x\",\"fields\":[{\"name\":\"s\",\"type\":{\"type\":\"record\",\"name\":\"S\",\"namespace\":\"\",\"fields\":[{\"name\":\"t\",\"type\":{\"type\":\"fixed\",\"name\":\"int\",\"namespace\":\"q\",\"size\":1}},{\"name\":\"u\",\"type\":\"q.int\"}]}}]}",
     "{\"type\":\"record\",\"name\":\"R\",\"namespace\":\"x\",\"fields\":[{\"name\":\"s\",\"type\":{\"type\":\"record\",\"name\":\"S\",\"fields\":[]}}]}"},
    {"{\"type\":\"error\",\"name\":\"Oops\",\"fields\":[{\"name\":\"m\",\"type\":\"string\",\"default\":\"\\u0000\\t\\u001f\\u00e9\\ud83d\\ude00/\"}],\"p\":{\"z\":1,\"a\":[1.0,1e20,-0.0,12345678901234567890]}}",
     "{\"type\":\"record\",\"name\":\"Oops\",\"fields\":[]}"},
    {"{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"Fwd\"},{\"name\":\"b\",\"type\":{\"type\":\"fixed\",\"name\":\"Fwd\",\"size\":3}}]}",
     "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":{\"type\":\"fixed\",\"name\":\"Fwd\",\"size\":4}}]}"},
    {"{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"u\",\"type\":[\"int\",{\"type\":\"array\",\"items\":\"int\"},{\"type\":\"map\",\"values\":\"int\"}]}]}",
     "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"u\",\"type\":[\"string\",{\"type\":\"array\",\"items\":\"long\"},{\"type\":\"map\",\"values\":\"int\"},\"boolean\"]}]}"},
  };

  // Texts Avro refuses; their messages are vectors too.
  static final String[] INVALID = {
    "", "null", "5", "{}", "{\"type\":\"Foo\"}", "{\"type\":5}", "[\"int\",\"int\"]", "[\"int\",[\"long\"]]",
    "{\"type\":\"record\",\"name\":\"R\",\"fields\":[]} x", "{\"type\":\"record\",\"name\":\"R\"}",
    "{\"type\":\"record\",\"fields\":[]}", "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"type\":\"int\"}]}",
    "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\"}]}",
    "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"},{\"name\":\"a\",\"type\":\"string\"}]}",
    "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"X\"}]}",
    "{\"type\":\"record\",\"name\":\"R\",\"namespace\":\"n\",\"fields\":[{\"name\":\"a\",\"type\":\"X\"}]}",
    "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"int\",\"order\":\"foo\"}]}",
    "{\"type\":\"fixed\",\"name\":\"F\",\"size\":-1}", "{\"type\":\"fixed\",\"name\":\"F\",\"size\":\"3\"}",
    "{\"type\":\"fixed\",\"name\":\"F\",\"size\":1.0}", "{\"type\":\"fixed\",\"name\":\"F\"}",
    "{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\",\"A\"]}", "{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\"],\"default\":\"B\"}",
    "{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\",1]}", "{\"type\":\"enum\",\"name\":\"E\"}",
    "{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"1A\"]}", "{\"type\":\"record\",\"name\":\"1R\",\"fields\":[]}",
    "{\"type\":\"record\",\"name\":\"a-b.R\",\"fields\":[]}", "{\"type\":\"record\",\"name\":\"R\",\"namespace\":\"a..b\",\"fields\":[]}",
    "{\"type\":\"record\",\"name\":\"int\",\"fields\":[]}", "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"é\",\"type\":\"int\"}]}",
    "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":{\"type\":\"record\",\"name\":\"R\",\"fields\":[]}}]}",
    "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"int\",\"default\":\"x\"}]}",
    "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"int\",\"default\":1.0}]}",
    "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"int\",\"default\":2147483648}]}",
    "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"long\",\"default\":9223372036854775808}]}",
    "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":{\"type\":\"array\",\"items\":\"int\"},\"default\":[1,\"x\"]}]}",
    "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":[\"null\",\"int\"],\"default\":\"x\"}]}",
    "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":{\"type\":\"map\",\"values\":\"int\"},\"default\":{\"k\":null}}]}",
    "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":{\"type\":\"record\",\"name\":\"S\",\"fields\":[{\"name\":\"x\",\"type\":\"int\"}]},\"default\":{}}]}",
    "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"boolean\",\"default\":null}]}",
    "{\"type\":\"record\",\"name\":\"R\",\"aliases\":\"x\",\"fields\":[]}", "{\"type\":\"record\",\"name\":\"R\",\"aliases\":[1],\"fields\":[]}",
    "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"int\",\"aliases\":[2]}]}",
    "{\"type\":\"array\"}", "{\"type\":\"map\"}", "{\"type\":\"array\",\"items\":\"nope\"}",
    "[{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\"]},{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"B\"]}]",
    "[{\"type\":\"fixed\",\"name\":\"F\",\"size\":1},{\"type\":\"fixed\",\"name\":\"F\",\"size\":1}]",
  };

  // Schemas checked alone: how Java writes what it read.
  static final String[] SINGLES = {
    // (No 7.0E22: Java 17 writes 7.0000000000000004E22, Java 19+ and Skiff the shortest, 7.0E22.)
    "{\"type\":\"int\",\"p\":[0.5,1e-3,1e-4,9999999,9999999.0,10000000.0,1.5e-7,123456789012,-2147483649,2147483647,"
        + "3.4028235E38,4.9E-324,-0.0,0.0,1E+2,12e-1,100,1.25E5,-1.0E-10,123456.789e3]}",
    "{\"type\":\"string\",\"p\":\"\\u0000\\u0008\\u000b\\u000c\\u001f\\\\ \\\" \\u2028 \\u00ff \\ud83d\\ude00\",\"q\":{}}",
    "{\"type\":\"record\",\"name\":\"D\",\"fields\":[{\"name\":\"d\",\"type\":\"double\",\"default\":\"  -1.5e3d \"},"
        + "{\"name\":\"e\",\"type\":\"double\",\"default\":\"Infinity\"},{\"name\":\"f\",\"type\":\"float\",\"default\":\".5\"},"
        + "{\"name\":\"g\",\"type\":[\"double\",\"null\"],\"default\":1},{\"name\":\"h\",\"type\":\"long\",\"default\":9007199254740993}]}",
    "{\"type\":\"record\",\"name\":\"Deep\",\"namespace\":\"a.b\",\"fields\":[{\"name\":\"x\",\"type\":{\"type\":\"record\","
        + "\"name\":\"c.X\",\"fields\":[{\"name\":\"y\",\"type\":{\"type\":\"enum\",\"name\":\"Y\",\"symbols\":[\"A\"]}},"
        + "{\"name\":\"z\",\"type\":{\"type\":\"map\",\"values\":\"a.b.Deep\"}},{\"name\":\"w\",\"type\":\"a.b.Deep\"}]}},"
        + "{\"name\":\"v\",\"type\":\"c.Y\"},{\"name\":\"u\",\"type\":{\"type\":\"fixed\",\"name\":\"U\",\"namespace\":\"\",\"size\":0}},"
        + "{\"name\":\"t\",\"type\":[\"null\",\"U\",\"c.X\"]}]}",
    "{\"type\":\"array\",\"items\":{\"type\":\"map\",\"values\":[\"null\",{\"type\":\"fixed\",\"name\":\"uuid16\",\"size\":16,"
        + "\"logicalType\":\"uuid\"},{\"type\":\"fixed\",\"name\":\"dur\",\"size\":12,\"logicalType\":\"duration\"}]},\"x\":null}",
    "{\"type\":\"record\",\"name\":\"R\",\"namespace\":\"n\",\"doc\":\"\",\"aliases\":[\"z\",\"a\",\".q\"],\"zz\":1,\"aa\":{\"b\":1,\"a\":2},\"fields\":[{\"name\":\"f\",\"type\":\"double\",\"default\":1,\"b\":2,\"a\":1,\"aliases\":[\"y\",\"x\"],\"doc\":\"\"},{\"name\":\"g\",\"type\":{\"type\":\"bytes\",\"x\":1,\"scale\":0,\"precision\":4,\"logicalType\":\"decimal\"}},{\"name\":\"h\",\"type\":{\"type\":\"fixed\",\"name\":\"H\",\"size\":4,\"logicalType\":\"decimal\",\"precision\":9,\"scale\":2,\"w\":[3,{\"d\":1,\"c\":2}]}}]}",
    "{\"type\":\"record\",\"name\":\"R2\",\"fields\":[{\"name\":\"f\",\"type\":\"float\",\"default\":1.1},{\"name\":\"b\",\"type\":\"bytes\",\"default\":\"\\u00ff\\u0100\"},{\"name\":\"u\",\"type\":[\"null\",\"long\"],\"default\":null},{\"name\":\"m\",\"type\":{\"type\":\"map\",\"values\":\"double\"},\"default\":{\"y\":2,\"x\":1}},{\"name\":\"r\",\"type\":{\"type\":\"record\",\"name\":\"In\",\"fields\":[{\"name\":\"q\",\"type\":\"float\"},{\"name\":\"p\",\"type\":\"int\"}]},\"default\":{\"q\":3,\"p\":4}},{\"name\":\"l\",\"type\":{\"type\":\"array\",\"items\":\"float\"},\"default\":[1,2.5]},{\"name\":\"x\",\"type\":[\"string\",\"int\"],\"default\":5}]}",
    "{\"type\":\"error\",\"name\":\"E\",\"fields\":[{\"name\":\"n\",\"type\":\"long\",\"order\":\"ignore\"},{\"name\":\"s\",\"type\":{\"type\":\"enum\",\"name\":\"x.S\",\"symbols\":[\"A\",\"B\"],\"default\":\"B\",\"doc\":\"d\",\"p\":true}},{\"name\":\"t\",\"type\":\"x.S\"},{\"name\":\"ts\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-micros\",\"z\":1,\"a\":\"b\"}},{\"name\":\"bad\",\"type\":{\"type\":\"int\",\"logicalType\":\"decimal\",\"precision\":2}}]}",
    "{\"type\":\"array\",\"items\":{\"type\":\"map\",\"values\":{\"type\":\"enum\",\"name\":\"Q\",\"symbols\":[\"A\"],\"aliases\":[\"b.Z\",\"Y\"]},\"b\":1,\"a\":2},\"logicalType\":\"nope\"}",
  };

  // Schemas with referenced schemas (their texts first, dependencies
  // first): the main text last in each row.
  static final String[][] REFERENCED = {
    {"{\"type\":\"record\",\"name\":\"Address\",\"namespace\":\"com.acme\",\"fields\":[{\"name\":\"street\",\"type\":\"string\"},"
        + "{\"name\":\"geo\",\"type\":{\"type\":\"record\",\"name\":\"Geo\",\"fields\":[{\"name\":\"lat\",\"type\":\"double\"}]}}]}",
     "{\"type\":\"record\",\"name\":\"User\",\"namespace\":\"com.acme\",\"fields\":[{\"name\":\"home\",\"type\":\"Address\"},"
        + "{\"name\":\"work\",\"type\":[\"null\",\"com.acme.Address\"],\"default\":null},{\"name\":\"spot\",\"type\":\"Geo\"}]}"},
    {"{\"type\":\"enum\",\"name\":\"Color\",\"symbols\":[\"RED\",\"GREEN\"]}",
     "{\"type\":\"fixed\",\"name\":\"x.Id\",\"size\":4}",
     "[\"null\",\"Color\",\"x.Id\",{\"type\":\"record\",\"name\":\"x.Holder\",\"fields\":[{\"name\":\"c\",\"type\":\"Color\"},"
        + "{\"name\":\"i\",\"type\":\"Id\"}]}]"},
    {"{\"type\":\"record\",\"name\":\"A\",\"namespace\":\"n\",\"fields\":[]}",
     "{\"type\":\"record\",\"name\":\"B\",\"namespace\":\"n\",\"fields\":[{\"name\":\"a\",\"type\":\"A\"}]}",
     "{\"type\":\"record\",\"name\":\"C\",\"namespace\":\"m\",\"fields\":[{\"name\":\"b\",\"type\":\"n.B\"},{\"name\":\"a\",\"type\":\"n.A\"}]}"},
    {"{\"type\":\"record\",\"name\":\"A\",\"namespace\":\"n\",\"fields\":[]}",
     "{\"type\":\"record\",\"name\":\"C\",\"fields\":[{\"name\":\"a\",\"type\":\"A\"}]}"},
    {"{\"type\":\"record\",\"name\":\"A\",\"fields\":[]}",
     "{\"type\":\"record\",\"name\":\"A\",\"fields\":[{\"name\":\"f\",\"type\":\"int\"}]}"},
    {"{\"type\":\"record\",\"name\":\"A\",\"fields\":[]}",
     "{\"type\":\"record\",\"name\":\"W\",\"fields\":[{\"name\":\"a\",\"type\":{\"type\":\"record\",\"name\":\"A\",\"fields\":[]}}]}"},
  };

  void build() {
    for (String[] p : EXTRA_PAIRS) {
      int a = add(p[0]);
      int b = add(p[1]);
      pair(a, b);
    }
    Random random = new Random(52);
    for (String b : BASES) {
      JsonNode base = j(b);
      int baseId = add(base);
      List<Integer> mutantIds = new ArrayList<>();
      for (JsonNode m : mutants(base)) {
        int id = add(m);
        mutantIds.add(id);
        pair(baseId, id);
      }
      for (int k = 0; k < mutantIds.size() / 2; k++) {
        pair(mutantIds.get(random.nextInt(mutantIds.size())), mutantIds.get(random.nextInt(mutantIds.size())));
      }
    }
    for (String s : INVALID) add(s);
    for (String s : SINGLES) add(s);
  }

  // Confluent's AvroSchema with references: one parser reads the
  // references, then the main text, printed with the references' names known.
  static String referenced(String[] texts) {
    try {
      Schema.Parser parser = new Schema.Parser(NameValidator.STRICT_VALIDATOR);
      parser.setValidateDefaults(true);
      List<Schema> refs = new ArrayList<>();
      for (int i = 0; i + 1 < texts.length; i++) refs.add(parser.parse(texts[i]));
      Schema main = parser.parse(texts[texts.length - 1]);
      return "K " + main.toString(refs, false);
    } catch (Exception e) {
      return "Y " + String.valueOf(e.getMessage()).replace("\n", "\\n");
    }
  }

  // Confluent's reading of a stored schema: no validation while parsing,
  // then the simple names of the main schema checked (AvroSchemaUtils.validateNames).
  static String lenient(String text) {
    try {
      Schema.Parser parser = new Schema.Parser(NameValidator.NO_VALIDATION);
      parser.setValidateDefaults(false);
      Schema s = parser.parse(text);
      String bad = badName(s, new java.util.IdentityHashMap<>());
      return bad != null ? "Z " + bad : "L " + s.toString();
    } catch (Exception e) {
      return "Z " + String.valueOf(e.getMessage()).replace("\n", "\\n");
    }
  }

  static String check(String name) {
    NameValidator.Result r = NameValidator.UTF_VALIDATOR.validate(name);
    return r.isOK() ? null : r.getErrors();
  }

  static String badName(Schema s, java.util.IdentityHashMap<Schema, Boolean> seen) {
    if (seen.put(s, true) != null) return null;
    String bad = null;
    switch (s.getType()) {
      case RECORD:
        bad = check(s.getName());
        for (Schema.Field f : s.getFields()) {
          if (bad == null) bad = check(f.name());
          if (bad == null) bad = badName(f.schema(), seen);
        }
        return bad;
      case ENUM:
        bad = check(s.getName());
        for (String sym : s.getEnumSymbols()) if (bad == null) bad = check(sym);
        return bad;
      case FIXED:
        return check(s.getName());
      case ARRAY:
        return badName(s.getElementType(), seen);
      case MAP:
        return badName(s.getValueType(), seen);
      case UNION:
        for (Schema b : s.getTypes()) if (bad == null) bad = badName(b, seen);
        return bad;
      default:
        return null;
    }
  }

  // Confluent's AvroSchema Difference wording of one incompatibility.
  static String difference(Incompatibility in) {
    String path = in.getLocation();
    String d;
    switch (in.getType()) {
      case FIXED_SIZE_MISMATCH:
        d = "The size of FIXED type field at path '" + path + "' in the %s schema does not match with the %s schema";
        break;
      case TYPE_MISMATCH:
        d = "The type (path '" + path + "') of a field in the %s schema does not match with the %s schema";
        break;
      case NAME_MISMATCH:
        d = "The name of the schema has changed (path '" + path + "')";
        break;
      case MISSING_ENUM_SYMBOLS:
        d = "The %s schema is missing enum symbols '" + in.getMessage() + "' at path '" + path + "' in the %s schema";
        break;
      case MISSING_UNION_BRANCH:
        d = "The %s schema is missing a type inside a union field at path '" + path + "' in the %s schema";
        break;
      case READER_FIELD_MISSING_DEFAULT_VALUE:
        d = "The field '" + in.getMessage() + "' at path '" + path
            + "' in the %s schema has no default value and is missing in the %s schema";
        break;
      default:
        d = "";
    }
    return "{errorType:'" + in.getType() + "', description:'" + d + "', additionalInfo:'" + in.getMessage() + "'}";
  }

  void check(PrintWriter out, int r, int w) {
    List<String> lines = new ArrayList<>();
    String verdict;
    try {
      SchemaCompatibility.SchemaPairCompatibility c =
          SchemaCompatibility.checkReaderWriterCompatibility(parsed.get(r), parsed.get(w));
      verdict = c.getType() == SchemaCompatibilityType.COMPATIBLE ? "COMPATIBLE" : "INCOMPATIBLE";
      for (Incompatibility in : c.getResult().getIncompatibilities()) lines.add(difference(in));
    } catch (Exception e) {
      verdict = "INCOMPATIBLE";
      lines.add("Unexpected exception during compatibility check: " + e.getMessage());
    }
    out.println("P " + r + " " + w + " " + verdict);
    for (String l : lines) out.println("D " + r + " " + w + " " + l);
  }

  // ---- Confluent's normalize(), as its AvroSchemaUtils describes it -------
  // (Confluent's jars are not on Maven Central: this follows the behaviour
  // of AvroSchema.normalize() — AvroSchemaUtils.toNormalizedString, then the
  // text parsed again and printed — written against the same Avro and
  // Jackson APIs, so Java's own conversions and printing decide the text.)

  static final class SortingFactory extends JsonNodeFactory {
    SortingFactory() {
      super(false);
    }

    @Override
    public ObjectNode objectNode() {
      return new ObjectNode(this, new TreeMap<>());
    }
  }

  static final ObjectMapper SORTED = JsonMapper.builder().nodeFactory(new SortingFactory()).build();

  @SuppressWarnings("unchecked")
  static void javaJson(Object d, com.fasterxml.jackson.core.JsonGenerator g) throws java.io.IOException {
    if (d == JsonProperties.NULL_VALUE) g.writeNull();
    else if (d instanceof Map) {
      g.writeStartObject();
      for (Map.Entry<Object, Object> e : ((Map<Object, Object>) d).entrySet()) {
        g.writeFieldName(e.getKey().toString());
        javaJson(e.getValue(), g);
      }
      g.writeEndObject();
    } else if (d instanceof java.util.Collection) {
      g.writeStartArray();
      for (Object x : (java.util.Collection<?>) d) javaJson(x, g);
      g.writeEndArray();
    } else if (d instanceof byte[]) g.writeString(new String((byte[]) d, StandardCharsets.ISO_8859_1));
    else if (d instanceof CharSequence || d instanceof Enum<?>) g.writeString(d.toString());
    else if (d instanceof Double) g.writeNumber((Double) d);
    else if (d instanceof Float) g.writeNumber((Float) d);
    else if (d instanceof Long) g.writeNumber((Long) d);
    else if (d instanceof Integer) g.writeNumber((Integer) d);
    else if (d instanceof Boolean) g.writeBoolean((Boolean) d);
    else if (d instanceof java.math.BigInteger) g.writeNumber((java.math.BigInteger) d);
    else if (d instanceof java.math.BigDecimal) g.writeNumber((java.math.BigDecimal) d);
    else throw new IllegalStateException("Unknown datum class: " + d.getClass());
  }

  static String sortedJson(Object d) throws java.io.IOException {
    if (d == null) throw new NullPointerException("null datum");
    TokenBuffer g = new TokenBuffer(SORTED, false);
    javaJson(d, g);
    return SORTED.readTree(g.asParser()).toString();
  }

  static void logicalProps(StringBuilder o, LogicalType lt) {
    o.append(",\"logicalType\":\"").append(lt.getName()).append("\"");
    if (lt.getName().equals("decimal")) {
      LogicalTypes.Decimal d = (LogicalTypes.Decimal) lt;
      o.append(",\"precision\":").append(d.getPrecision());
      if (d.getScale() != 0) o.append(",\"scale\":").append(d.getScale());
    }
  }

  static void simpleProps(StringBuilder o, Map<String, Object> props) throws java.io.IOException {
    for (Map.Entry<String, Object> e : new TreeMap<>(props).entrySet())
      o.append(",\"").append(e.getKey()).append("\":").append(sortedJson(e.getValue()));
  }

  static void normalize(Map<String, String> env, Schema s, StringBuilder o) throws java.io.IOException {
    LogicalType lt = s.getLogicalType();
    switch (s.getType()) {
      case UNION: {
        o.append('[');
        boolean first = true;
        for (Schema b : s.getTypes()) {
          if (!first) o.append(',');
          first = false;
          normalize(env, b, o);
        }
        o.append(']');
        return;
      }
      case ARRAY:
      case MAP:
        o.append("{\"type\":\"").append(s.getType().getName()).append("\"");
        if (s.getType() == Schema.Type.ARRAY) normalize(env, s.getElementType(), o.append(",\"items\":"));
        else normalize(env, s.getValueType(), o.append(",\"values\":"));
        if (lt != null) logicalProps(o, lt);
        simpleProps(o, s.getObjectProps());
        o.append('}');
        return;
      case ENUM:
      case FIXED:
      case RECORD: {
        String name = s.getFullName();
        if (env.get(name) != null) {
          o.append(env.get(name));
          return;
        }
        String q = "\"" + name + "\"";
        env.put(name, q);
        o.append("{\"name\":").append(q).append(",\"type\":\"").append(s.getType().getName()).append("\"");
        if (s.getType() == Schema.Type.ENUM) {
          o.append(",\"symbols\":[");
          boolean first = true;
          for (String sym : s.getEnumSymbols()) {
            if (!first) o.append(',');
            first = false;
            o.append('"').append(sym).append('"');
          }
          o.append(']');
        } else if (s.getType() == Schema.Type.FIXED) {
          o.append(",\"size\":").append(s.getFixedSize());
        } else {
          o.append(",\"fields\":[");
          boolean first = true;
          for (Schema.Field f : s.getFields()) {
            if (!first) o.append(',');
            first = false;
            o.append("{\"name\":\"").append(f.name()).append("\"");
            normalize(env, f.schema(), o.append(",\"type\":"));
            o.append(",\"order\":\"").append(f.order().toString()).append("\"");
            if (f.doc() != null) o.append(",\"doc\":").append(sortedJson(f.doc()));
            if (!f.aliases().isEmpty()) o.append(",\"aliases\":").append(sortedJson(new TreeSet<>(f.aliases())));
            if (f.defaultVal() != null) o.append(",\"default\":").append(sortedJson(f.defaultVal()));
            simpleProps(o, f.getObjectProps());
            o.append('}');
          }
          o.append(']');
        }
        if (lt != null) logicalProps(o, lt);
        if (s.getDoc() != null && !s.getDoc().isEmpty()) o.append(",\"doc\":").append(sortedJson(s.getDoc()));
        if (!s.getAliases().isEmpty()) o.append(",\"aliases\":").append(sortedJson(new TreeSet<>(s.getAliases())));
        if (s.getType() == Schema.Type.ENUM && s.getEnumDefault() != null)
          o.append(",\"default\":").append(sortedJson(s.getEnumDefault()));
        simpleProps(o, s.getObjectProps());
        o.append('}');
        return;
      }
      default:
        if (lt != null) {
          o.append("{\"type\":\"").append(s.getType().getName()).append("\"");
          logicalProps(o, lt);
          simpleProps(o, s.getObjectProps());
          o.append('}');
        } else if (s.hasProps()) {
          o.append("{\"type\":\"").append(s.getType().getName()).append('"');
          simpleProps(o, s.getObjectProps());
          o.append('}');
        } else {
          o.append('"').append(s.getType().getName()).append('"');
        }
    }
  }

  static String normalized(Schema s) {
    try {
      StringBuilder o = new StringBuilder();
      normalize(new java.util.HashMap<>(), s, o);
      Schema.Parser parser = new Schema.Parser(NameValidator.STRICT_VALIDATOR);
      parser.setValidateDefaults(true);
      return parser.parse(o.toString()).toString();
    } catch (Exception e) {
      return null;
    }
  }

  // ---- values: binary and Avro's JSON encoding of random data ------------

  static Object datum(Schema s, Random r, int depth) {
    switch (s.getType()) {
      case NULL: return null;
      case BOOLEAN: return r.nextBoolean();
      case INT: return r.nextInt(3) == 0 ? r.nextInt() : r.nextInt(200) - 100;
      case LONG: return r.nextInt(3) == 0 ? r.nextLong() : (long) (r.nextInt(20000) - 10000);
      case FLOAT: return r.nextInt(4) == 0 ? Float.NaN : (float) (r.nextInt(2000) - 1000) / 8;
      case DOUBLE: return r.nextInt(4) == 0 ? r.nextDouble() * 1e10 : (double) (r.nextInt(2000) - 1000) / 16;
      case STRING: {
        String[] pool = {"", "a", "héllo", "\u0001\"\\", "\ud83d\ude00 x", "line\nbreak"};
        return pool[r.nextInt(pool.length)];
      }
      case BYTES: {
        byte[] b = new byte[r.nextInt(6)];
        r.nextBytes(b);
        return java.nio.ByteBuffer.wrap(b);
      }
      case FIXED: {
        byte[] b = new byte[s.getFixedSize()];
        r.nextBytes(b);
        return new GenericData.Fixed(s, b);
      }
      case ENUM: return new GenericData.EnumSymbol(s, s.getEnumSymbols().get(r.nextInt(s.getEnumSymbols().size())));
      case ARRAY: {
        List<Object> l = new ArrayList<>();
        int n = depth > 3 ? 0 : r.nextInt(4);
        for (int i = 0; i < n; i++) l.add(datum(s.getElementType(), r, depth + 1));
        return l;
      }
      case MAP: {
        Map<String, Object> m = new LinkedHashMap<>();
        int n = depth > 3 ? 0 : r.nextInt(4);
        for (int i = 0; i < n; i++) m.put("k" + i, datum(s.getValueType(), r, depth + 1));
        return m;
      }
      case UNION: {
        List<Schema> types = s.getTypes();
        Schema pick = types.get(r.nextInt(types.size()));
        if (depth > 3)
          for (Schema t : types) if (t.getType() == Schema.Type.NULL) pick = t;
        return datum(pick, r, depth + 1);
      }
      case RECORD: {
        GenericData.Record rec = new GenericData.Record(s);
        for (Schema.Field f : s.getFields()) rec.put(f.pos(), datum(f.schema(), r, depth + 1));
        return rec;
      }
      default: throw new IllegalStateException();
    }
  }

  static String hex(byte[] b) {
    StringBuilder sb = new StringBuilder();
    for (byte x : b) sb.append(String.format("%02x", x & 0xff));
    return sb.toString();
  }

  // "E <id> <hex>" then "J <id> <json>" for a few values of each valid schema.
  void values(PrintWriter out) throws Exception {
    Random r = new Random(7);
    for (int i = 0; i < texts.size(); i += 7) {
      Schema s = parsed.get(i);
      if (s == null) continue;
      for (int k = 0; k < 3; k++) {
        Object d;
        try {
          d = datum(s, r, 0);
        } catch (RuntimeException e) {
          continue;
        }
        GenericDatumWriter<Object> w = new GenericDatumWriter<>(s);
        java.io.ByteArrayOutputStream bin = new java.io.ByteArrayOutputStream();
        BinaryEncoder be = EncoderFactory.get().binaryEncoder(bin, null);
        java.io.ByteArrayOutputStream json = new java.io.ByteArrayOutputStream();
        JsonEncoder je = EncoderFactory.get().jsonEncoder(s, json);
        try {
          w.write(d, be);
          be.flush();
          w.write(d, je);
          je.flush();
        } catch (Exception e) {
          continue;
        }
        out.println("E " + i + " " + hex(bin.toByteArray()));
        out.println("J " + i + " " + json.toString("UTF-8"));
      }
    }
  }

  public static void main(String[] args) throws Exception {
    AvroOracle o = new AvroOracle();
    o.build();
    try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(Paths.get(args[0]), StandardCharsets.UTF_8))) {
      out.println("# Avro oracle vectors: what Apache Avro Java 1.12.2 decides, for Skiff's Avro schema tests.");
      out.println("# Regenerate with tools/avro_oracle/generate.sh; do not edit by hand.");
      out.println("# One record per line; fields separated by one space; the last field runs to the end of line.");
      out.println("#   S <id> <text>           a schema text (one line), as a client registers it");
      out.println("#   C <id> <canonical>      Schema.toString() of schema <id> (parsed with the strict name");
      out.println("#                           validator and default validation, as Confluent parses a new schema)");
      out.println("#   X <id> <message>        the exception message when Avro refuses schema <id> (newlines as \\n)");
      out.println("#   P <r> <w> <verdict>     SchemaCompatibility.checkReaderWriterCompatibility(reader=<r>, writer=<w>):");
      out.println("#                           COMPATIBLE or INCOMPATIBLE; every pair is listed in both directions");
      out.println("#   D <r> <w> <difference>  one incompatibility of that check, in order, worded as Confluent's");
      out.println("#                           AvroSchema.isBackwardCompatible words it (\"%s\" left for new/old)");
      out.println("#   L <id> <canonical>      schema <id> read as Confluent reads a stored schema (no validation");
      out.println("#                           while parsing, then the main schema's simple names checked)");
      out.println("#   Z <id> <message>        ... or its refusal in that mode");
      out.println("#   R <text>                a referenced schema's text, for the next Q (dependencies first)");
      out.println("#   Q <n> <text>            a schema read after the R lines above it (since the last Q)");
      out.println("#   K <n> <canonical>       its Schema.toString(references, false), Confluent's canonical string");
      out.println("#   Y <n> <message>         ... or the refusal");
      out.println("#   N <id> <canonical>      the canonical text of Confluent's normalize() of schema <id>");
      out.println("#                           (none where it throws)");
      out.println("#   E <id> <hex>            a value written with schema <id> (Avro binary, in hex)");
      out.println("#   J <id> <json>           ... and the same value in Avro's JSON encoding (JsonEncoder)");
      out.println("# Counts: " + o.texts.size() + " schemas, " + o.pairs.size() + " pairs, " + REFERENCED.length
          + " schemas with references.");
      for (int i = 0; i < o.texts.size(); i++) {
        out.println("S " + i + " " + o.texts.get(i));
        if (o.parsed.get(i) != null) out.println("C " + i + " " + o.parsed.get(i).toString());
        String n = o.parsed.get(i) == null ? null : normalized(o.parsed.get(i));
        if (n != null) out.println("N " + i + " " + n);
        else out.println("X " + i + " " + o.errors.get(i));
        out.println(lenient(o.texts.get(i)).replaceFirst(" ", " " + i + " "));
      }
      for (int q = 0; q < REFERENCED.length; q++) {
        String[] texts = REFERENCED[q];
        for (int i = 0; i + 1 < texts.length; i++) out.println("R " + texts[i]);
        out.println("Q " + q + " " + texts[texts.length - 1]);
        out.println(referenced(texts).replaceFirst(" ", " " + q + " "));
      }
      for (int[] p : o.pairs) {
        o.check(out, p[0], p[1]);
        o.check(out, p[1], p[0]);
      }
      o.values(out);
    }
  }
}
