// Oracle: the byte layout Jackson gives Confluent's _schemas key and value
// classes (annotations and constructors as in Confluent's core/.../storage/),
// reduced to the fields that decide the layout.
import com.fasterxml.jackson.annotation.*;
import com.fasterxml.jackson.databind.*;
import java.util.*;

public class RecordOrder {
  @JsonInclude(JsonInclude.Include.NON_EMPTY) @JsonIgnoreProperties(ignoreUnknown = true)
  public abstract static class Key {
    protected int magicByte; protected String keyType;
    public Key(@JsonProperty("keytype") String keyType) { this.keyType = keyType; }
    @JsonProperty("magic") public int getMagicByte() { return magicByte; }
    @JsonProperty("keytype") public String getKeyType() { return keyType; }
  }
  @JsonInclude(JsonInclude.Include.NON_EMPTY) @JsonIgnoreProperties(ignoreUnknown = true)
  public abstract static class SubjectKey extends Key {
    private String subject;
    public SubjectKey(@JsonProperty("keytype") String t, @JsonProperty("subject") String s) { super(t); subject = s; }
    @JsonProperty("subject") public String getSubject() { return subject; }
  }
  @JsonInclude(JsonInclude.Include.NON_EMPTY) @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonPropertyOrder(value = {"keytype", "subject", "magic"})
  public static class ConfigKey extends SubjectKey {
    public ConfigKey(@JsonProperty("subject") String s) { super("CONFIG", s); magicByte = 0; }
  }
  @JsonInclude(JsonInclude.Include.NON_EMPTY) @JsonIgnoreProperties(ignoreUnknown = true)
  public abstract static class Value {
    protected Long offset; protected Long timestamp;
    @JsonProperty("offset") public Long getOffset() { return offset; }
    @JsonProperty("ts") public Long getTimestamp() { return timestamp; }
  }
  @JsonInclude(JsonInclude.Include.NON_EMPTY) @JsonIgnoreProperties(ignoreUnknown = true)
  public abstract static class SubjectValue extends Value {
    private String subject;
    public SubjectValue(@JsonProperty("subject") String s) { subject = s; }
    @JsonProperty("subject") public String getSubject() { return subject; }
  }
  @JsonInclude(JsonInclude.Include.NON_EMPTY) @JsonIgnoreProperties(ignoreUnknown = true)
  public static class SchemaValue extends SubjectValue {
    private Integer version; private Integer id; private String md5; private String schema;
    private String schemaType = "AVRO"; private List<Map<String,Object>> references = Collections.emptyList();
    private Map<String,Object> metadata = null; private Map<String,Object> ruleSet = null; private boolean deleted;
    public SchemaValue(@JsonProperty("subject") String subject, @JsonProperty("version") Integer version,
        @JsonProperty("id") Integer id, @JsonProperty("schema") String schema, @JsonProperty("deleted") boolean deleted) {
      super(subject); this.version = version; this.id = id; this.schema = schema; this.deleted = deleted; }
    public SchemaValue(@JsonProperty("subject") String subject, @JsonProperty("version") Integer version,
        @JsonProperty("id") Integer id, @JsonProperty("schemaType") String schemaType,
        @JsonProperty("references") List<Map<String,Object>> references, @JsonProperty("schema") String schema,
        @JsonProperty("deleted") boolean deleted) {
      super(subject); this.version = version; this.id = id; this.schemaType = schemaType != null ? schemaType : "AVRO";
      this.references = references != null ? references : Collections.emptyList(); this.schema = schema; this.deleted = deleted; }
    @JsonCreator
    public SchemaValue(@JsonProperty("subject") String subject, @JsonProperty("version") Integer version,
        @JsonProperty("id") Integer id, @JsonProperty("md5") String md5, @JsonProperty("schemaType") String schemaType,
        @JsonProperty("references") List<Map<String,Object>> references, @JsonProperty("metadata") Map<String,Object> metadata,
        @JsonProperty("ruleSet") Map<String,Object> ruleSet, @JsonProperty("schema") String schema,
        @JsonProperty("deleted") boolean deleted) {
      super(subject); this.version = version; this.id = id; this.md5 = md5; this.schemaType = schemaType != null ? schemaType : "AVRO";
      this.references = references != null ? references : Collections.emptyList(); this.metadata = metadata; this.ruleSet = ruleSet;
      this.schema = schema; this.deleted = deleted; }
    public SchemaValue(String subject, int version, String schemaType, List<Map<String,Object>> refs, String schema) {
      super(subject); this.version = version; this.schemaType = schemaType; this.references = refs; this.schema = schema; this.deleted = false; }
    @JsonProperty("version") public Integer getVersion() { return version; }
    @JsonProperty("id") public Integer getId() { return id; }
    @JsonProperty("md5") public String getMd5() { return md5; }
    @JsonProperty("schemaType") public String getSchemaType() { return schemaType; }
    @JsonProperty("references") public List<Map<String,Object>> getReferences() { return references; }
    @JsonProperty("metadata") public Map<String,Object> getMetadata() { return metadata; }
    @JsonProperty("ruleSet") public Map<String,Object> getRuleSet() { return ruleSet; }
    @JsonProperty("schema") public String getSchema() { return schema; }
    @JsonProperty("deleted") public boolean isDeleted() { return deleted; }
    public void setId(Integer id) { this.id = id; }
    public void setDeleted(boolean d) { this.deleted = d; }
  }
  @JsonInclude(JsonInclude.Include.NON_EMPTY) @JsonIgnoreProperties(ignoreUnknown = true)
  public static class ModeValue extends SubjectValue {
    private String mode;
    public ModeValue(@JsonProperty("subject") String subject, @JsonProperty("mode") String mode) { super(subject); this.mode = mode; }
    @JsonProperty("mode") public String getMode() { return mode; }
  }
  @JsonInclude(JsonInclude.Include.NON_EMPTY) @JsonIgnoreProperties(ignoreUnknown = true)
  public static class DeleteSubjectValue extends SubjectValue {
    private Integer version;
    public DeleteSubjectValue(@JsonProperty("subject") String subject, @JsonProperty("version") Integer version) { super(subject); this.version = version; }
    @JsonProperty("version") public Integer getVersion() { return version; }
  }
  @JsonInclude(JsonInclude.Include.NON_EMPTY) @JsonIgnoreProperties(ignoreUnknown = true)
  public static class ConfigValue extends SubjectValue {
    private String alias; private Boolean normalize; private Boolean validateFields; private String compatibilityLevel;
    public ConfigValue(@JsonProperty("subject") String subject, @JsonProperty("alias") String alias,
        @JsonProperty("normalize") Boolean normalize, @JsonProperty("validateFields") Boolean validateFields,
        @JsonProperty("compatibilityLevel") String compatibilityLevel) {
      super(subject); this.alias = alias; this.normalize = normalize; this.validateFields = validateFields; this.compatibilityLevel = compatibilityLevel; }
    @JsonProperty("alias") public String getAlias() { return alias; }
    @JsonProperty("normalize") public Boolean isNormalize() { return normalize; }
    @JsonProperty("validateFields") public Boolean isValidateFields() { return validateFields; }
    @JsonProperty("compatibilityLevel") public String getCompatibilityLevel() { return compatibilityLevel; }
  }

  public static void main(String[] a) throws Exception {
    ObjectMapper m = new ObjectMapper();
    System.out.println(m.writeValueAsString(new ConfigKey(null)));
    System.out.println(m.writeValueAsString(new ConfigKey("s")));
    SchemaValue v = new SchemaValue("s", 1, "AVRO", new ArrayList<>(), "\"string\"");
    v.setId(1);
    System.out.println(m.writeValueAsString(v));
    Map<String,Object> ref = new LinkedHashMap<>(); ref.put("name", "n"); ref.put("subject", "r"); ref.put("version", 1);
    SchemaValue p = new SchemaValue("s", 2, "PROTOBUF", List.of(ref), "syntax");
    p.setId(2); p.setDeleted(true);
    System.out.println(m.writeValueAsString(p));
    System.out.println(m.writeValueAsString(new ModeValue("s", "READONLY")));
    System.out.println(m.writeValueAsString(new ModeValue(null, "IMPORT")));
    System.out.println(m.writeValueAsString(new DeleteSubjectValue("s", 3)));
    System.out.println(m.writeValueAsString(new ConfigValue(null, null, true, null, "FULL")));
  }
}
