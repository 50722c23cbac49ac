// The oracle of Skiff's JSON Schema format (schema/json/): for every schema
// of a cases file, what Confluent's registry would make of it, from the
// libraries Confluent uses:
//   canonical  <Jackson's compact text, read with BigDecimal floats>
//   normalized <the same, re-read with object members sorted>
//   load ok | load error <everit's message> | load skipped (2019-09 and
//        2020-12 are loaded by json-sKema in Confluent, not checked here)
//   order <the property names of the loaded ObjectSchema, in the order its
//        HashMap iterates them>
//   shape <the loaded schema's structure (everit's classes and the facets
//        Confluent's diff reads), in the grammar of describe() below>
// Usage: see gen.sh.
package skiff.oracle;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeMap;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Map;
import org.everit.json.schema.ArraySchema;
import org.everit.json.schema.BooleanSchema;
import org.everit.json.schema.CombinedSchema;
import org.everit.json.schema.ConditionalSchema;
import org.everit.json.schema.ConstSchema;
import org.everit.json.schema.EmptySchema;
import org.everit.json.schema.EnumSchema;
import org.everit.json.schema.FalseSchema;
import org.everit.json.schema.NotSchema;
import org.everit.json.schema.NullSchema;
import org.everit.json.schema.NumberSchema;
import org.everit.json.schema.ObjectSchema;
import org.everit.json.schema.ReferenceSchema;
import org.everit.json.schema.Schema;
import org.everit.json.schema.StringSchema;
import org.everit.json.schema.TrueSchema;
import org.everit.json.schema.loader.SchemaLoader;
import org.json.JSONObject;

public final class Oracle {
  private Oracle() {}

  /** Object nodes kept in a TreeMap: members sorted by String.compareTo. */
  static final class SortedNodes extends JsonNodeFactory {
    SortedNodes() {
      super(true);
    }

    @Override
    public ObjectNode objectNode() {
      return new ObjectNode(this, new TreeMap<>());
    }
  }

  static ObjectMapper mapper(boolean sorted) {
    ObjectMapper m = JsonMapper.builder().build();
    m.enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
    m.setNodeFactory(sorted ? new SortedNodes() : JsonNodeFactory.withExactBigDecimals(true));
    return m;
  }

  static String oneLine(String s) {
    return s == null ? "" : s.replace('\n', ' ').replace('\r', ' ');
  }

  static String flags(String... pairs) {
    List<String> on = new ArrayList<>();
    for (int i = 0; i < pairs.length; i += 2) {
      if (pairs[i + 1] != null) {
        on.add(pairs[i] + pairs[i + 1]);
      }
    }
    return on.isEmpty() ? "" : "(" + String.join(",", on) + ")";
  }

  static String str(Object o) {
    return o == null ? null : "=" + o;
  }

  static String present(Object o) {
    return o == null ? null : "";
  }

  static String bool(boolean b) {
    return b ? "" : null;
  }

  static String describe(Schema s, int depth) {
    if (depth > 12) {
      return "...";
    }
    if (s == null) {
      return "-";
    }
    if (s instanceof ReferenceSchema) {
      return "ref";
    }
    if (s instanceof TrueSchema) {
      return "true";
    }
    if (s instanceof EmptySchema) {
      return "empty";
    }
    if (s instanceof FalseSchema) {
      return "false";
    }
    if (s instanceof BooleanSchema) {
      return "boolean";
    }
    if (s instanceof NullSchema) {
      return "null";
    }
    if (s instanceof ConditionalSchema) {
      return "if";
    }
    if (s instanceof ConstSchema) {
      return "const";
    }
    if (s instanceof EnumSchema) {
      return "enum" + ((EnumSchema) s).getPossibleValues().size();
    }
    if (s instanceof NotSchema) {
      return "not(" + describe(((NotSchema) s).getMustNotMatch(), depth + 1) + ")";
    }
    if (s instanceof StringSchema) {
      StringSchema t = (StringSchema) s;
      return "string" + flags("min", str(t.getMinLength()), "max", str(t.getMaxLength()),
          "pattern", present(t.getPattern()));
    }
    if (s instanceof NumberSchema) {
      NumberSchema n = (NumberSchema) s;
      return "number" + flags("int", bool(n.requiresInteger()), "min", present(n.getMinimum()),
          "max", present(n.getMaximum()), "xmin", present(n.getExclusiveMinimumLimit()),
          "xmax", present(n.getExclusiveMaximumLimit()), "mult", present(n.getMultipleOf()));
    }
    if (s instanceof CombinedSchema) {
      CombinedSchema c = (CombinedSchema) s;
      List<String> parts = new ArrayList<>();
      for (Schema sub : c.getSubschemas()) {
        parts.add(describe(sub, depth + 1));
      }
      if (c.getCriterion() == CombinedSchema.ALL_CRITERION) {
        Collections.sort(parts);  // everit collects a synthetic allOf's parts in a HashSet: no order
      }
      return c.getCriterion() + "[" + String.join(",", parts) + "]";
    }
    if (s instanceof ArraySchema) {
      ArraySchema a = (ArraySchema) s;
      List<String> tuple = new ArrayList<>();
      if (a.getItemSchemas() != null) {
        for (Schema sub : a.getItemSchemas()) {
          tuple.add(describe(sub, depth + 1));
        }
      }
      return "array{items:" + describe(a.getAllItemSchema(), depth + 1) + ",tuple:[" + String.join(",", tuple)
          + "],additional:" + (a.permitsAdditionalItems() ? describe(a.getSchemaOfAdditionalItems(), depth + 1) : "no")
          + flags("min", str(a.getMinItems()), "max", str(a.getMaxItems()), "unique", bool(a.needsUniqueItems())) + "}";
    }
    if (s instanceof ObjectSchema) {
      ObjectSchema o = (ObjectSchema) s;
      List<String> props = new ArrayList<>();
      List<String> names = new ArrayList<>(o.getPropertySchemas().keySet());
      Collections.sort(names);
      for (String name : names) {
        props.add(name + ":" + describe(o.getPropertySchemas().get(name), depth + 1));
      }
      List<String> required = new ArrayList<>(o.getRequiredProperties());
      List<String> deps = new ArrayList<>(o.getPropertyDependencies().keySet());
      deps.addAll(o.getSchemaDependencies().keySet());
      Collections.sort(deps);
      return "object{" + String.join(",", props) + ",additional:"
          + (o.permitsAdditionalProperties() ? describe(o.getSchemaOfAdditionalProperties(), depth + 1) : "no")
          + ",required:" + String.join("|", required) + ",patterns:" + o.getPatternProperties().size()
          + ",deps:" + String.join("|", deps)
          + flags("min", str(o.getMinProperties()), "max", str(o.getMaxProperties())) + "}";
    }
    return "?" + s.getClass().getSimpleName();
  }

  static boolean modern(JsonNode node) {
    JsonNode s = node.get("$schema");
    return s != null && s.isTextual() && s.asText().contains("/draft/20");
  }

  static void load(JsonNode node, String canonical, PrintWriter out) {
    if (!node.isObject()) {
      out.println("load skipped");
      return;
    }
    if (modern(node)) {
      out.println("load skipped");
      return;
    }
    try {
      Schema schema = SchemaLoader.builder().useDefaults(true).draftV7Support()
          .schemaJson(new JSONObject(canonical)).build().load().build();
      out.println("load ok");
      out.println("shape " + describe(schema, 0));
      if (schema instanceof ObjectSchema) {
        out.println("order " + String.join(",", ((ObjectSchema) schema).getPropertySchemas().keySet()));
      }
    } catch (RuntimeException e) {
      out.println("load error " + oneLine(e.getMessage()));
    }
  }

  public static void main(String[] args) throws Exception {
    ObjectMapper plain = mapper(false);
    ObjectMapper sorted = mapper(true);
    List<String> lines = Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8);
    try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(Path.of(args[1]), StandardCharsets.UTF_8))) {
      out.println("# Generated by tools/json_schema_oracle/gen.sh from " + Path.of(args[0]).getFileName()
          + " (Jackson 2.18, everit-json-schema 1.14.6). Do not edit.");
      for (String line : lines) {
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        out.println("schema " + line);
        JsonNode node;
        try {
          node = plain.readTree(line);
        } catch (Exception e) {
          out.println("json error");
          continue;
        }
        String canonical = plain.writeValueAsString(node);
        out.println("canonical " + canonical);
        out.println("normalized " + sorted.writeValueAsString(sorted.readTree(canonical)));
        load(node, canonical, out);
      }
    }
  }
}
