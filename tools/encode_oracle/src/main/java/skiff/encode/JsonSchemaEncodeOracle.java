package skiff.encode;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.everit.json.schema.Schema;
import org.everit.json.schema.ValidationException;
import org.everit.json.schema.loader.SchemaLoader;
import org.json.JSONArray;
import org.json.JSONObject;
import org.json.JSONTokener;

/**
 * Reads JSON Schema encode cases ("ref <name> <schema>", "schema <schema>",
 * "value <json>"; '#' comments) and writes them back with "=> <payload>"
 * (Jackson's compact text of the value, read with USE_BIG_DECIMAL_FOR_FLOATS
 * and exact BigDecimals, as Confluent's Jackson.newObjectMapper() reads it) or "=> error <message>"
 * after each value: the value validated with everit-json-schema as
 * Confluent's JsonSchema loads it (useDefaults, draft 7 by default,
 * references registered by name).
 */
public final class JsonSchemaEncodeOracle {
  public static void main(String[] args) throws Exception {
    ObjectMapper mapper = new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
    mapper.setNodeFactory(JsonNodeFactory.withExactBigDecimals(true));
    List<String> out = new ArrayList<>();
    Map<String, String> refs = new LinkedHashMap<>();
    Schema schema = null;
    for (String line : Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8)) {
      out.add(line);
      if (line.startsWith("ref ")) {
        String rest = line.substring(4);
        int space = rest.indexOf(' ');
        refs.put(rest.substring(0, space), rest.substring(space + 1));
      } else if (line.startsWith("schema ")) {
        SchemaLoader.SchemaLoaderBuilder b = SchemaLoader.builder().useDefaults(true).draftV7Support();
        for (Map.Entry<String, String> r : refs.entrySet())
          b.registerSchemaByURI(new URI(r.getKey()), new JSONObject(r.getValue()));
        b.schemaJson(new JSONTokener(line.substring(7)).nextValue());
        schema = b.build().load().build();
        refs.clear();
      } else if (line.startsWith("value ")) {
        out.add("=> " + encode(mapper, schema, line.substring(6)));
      }
    }
    Files.write(Path.of(args[1]), out, StandardCharsets.UTF_8);
  }

  static String encode(ObjectMapper mapper, Schema schema, String text) {
    try {
      JsonNode node = mapper.readTree(text);
      Object subject;
      if (node.isObject()) subject = new JSONObject(text);
      else if (node.isArray()) subject = new JSONArray(text);
      else if (node.isNull()) subject = JSONObject.NULL;
      else if (node.isBoolean()) subject = node.booleanValue();
      else if (node.isNumber()) subject = node.numberValue();
      else subject = node.textValue();
      schema.validate(subject);
      return mapper.writeValueAsString(node);
    } catch (ValidationException e) {
      return "error " + String.join("; ", e.getAllMessages());
    } catch (Exception | StackOverflowError e) {
      return "error " + e.getClass().getSimpleName() + ": " + String.valueOf(e.getMessage()).replace('\n', ' ');
    }
  }
}
