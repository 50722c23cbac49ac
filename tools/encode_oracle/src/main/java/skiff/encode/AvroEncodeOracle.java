package skiff.encode;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;

/**
 * Reads encode cases ("ref <schema>", "schema <schema>", "value <json>"; '#'
 * comments) and writes them back with a "=> <hex>" or "=> error <message>"
 * line after each value: the value read as Confluent's
 * AvroSchemaUtils.toObject(JsonNode, schema) reads it (Jackson tree, written
 * back, Avro's JsonDecoder into a GenericDatumReader without logical-type
 * conversions) and written by a GenericDatumWriter in Avro's binary encoding.
 */
public final class AvroEncodeOracle {
  public static void main(String[] args) throws Exception {
    ObjectMapper mapper = new ObjectMapper();
    List<String> out = new ArrayList<>();
    List<String> refs = new ArrayList<>();
    Schema schema = null;
    for (String line : Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8)) {
      out.add(line);
      if (line.startsWith("ref ")) {
        refs.add(line.substring(4));
      } else if (line.startsWith("schema ")) {
        Schema.Parser parser = new Schema.Parser();
        for (String r : refs) parser.parse(r);
        schema = parser.parse(line.substring(7));
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
      ByteArrayOutputStream json = new ByteArrayOutputStream();
      mapper.writeValue(json, node);
      GenericDatumReader<Object> reader = new GenericDatumReader<>(schema, schema, new GenericData());
      Object datum = reader.read(null,
          DecoderFactory.get().jsonDecoder(schema, new java.io.ByteArrayInputStream(json.toByteArray())));
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      BinaryEncoder enc = EncoderFactory.get().directBinaryEncoder(bytes, null);
      new GenericDatumWriter<Object>(schema, new GenericData()).write(datum, enc);
      enc.flush();
      StringBuilder hex = new StringBuilder();
      for (byte b : bytes.toByteArray()) hex.append(String.format("%02x", b & 0xff));
      return hex.length() == 0 ? "empty" : hex.toString();
    } catch (Exception | StackOverflowError e) {
      String m = String.valueOf(e.getMessage()).replace('\n', ' ');
      return "error " + e.getClass().getSimpleName() + ": " + m;
    }
  }
}
