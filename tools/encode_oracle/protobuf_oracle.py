"""Writes tests/schema/protobuf/encode_vectors.txt from encode_cases.txt.

Cases (one per line, '#' comments): "ref <import path> <.proto text>" a
referenced file, "schema <.proto text>" the schema (main.proto), "message
<full name>" the message to write ("message" alone: the file's first),
"value <json>" a value in protobuf's JSON mapping. After each value the
output has "=> <hex>" (the bytes after Confluent's 5-byte header, as
confluent-kafka's ProtobufSerializer writes them: the message indexes, then
the message parsed by protobuf's json_format) or "=> error <message>".
protoc compiles the files; a mock registry stands in for the real one.
"""
import os
import subprocess
import sys
import tempfile

from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.protobuf import ProtobufSerializer
from confluent_kafka.serialization import MessageField, SerializationContext


def build(files):
    with tempfile.TemporaryDirectory() as d:
        for name, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(d, name)), exist_ok=True)
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        out = os.path.join(d, "set.pb")
        subprocess.run(["protoc", "-I", d, "-I", "/usr/include", "--include_imports",
                        "--descriptor_set_out=" + out, "main.proto"], check=True)
        fds = descriptor_pb2.FileDescriptorSet.FromString(open(out, "rb").read())
    pool = descriptor_pool.DescriptorPool()
    for fd in fds.file:
        pool.Add(fd)
    return pool


def encode(pool, name, value, n):
    try:
        fd = pool.FindFileByName("main.proto")
        desc = pool.FindMessageTypeByName(name) if name else list(fd.message_types_by_name.values())[0]
        cls = message_factory.GetMessageClass(desc)
        msg = json_format.Parse(value, cls())
        client = SchemaRegistryClient.new_client({"url": "mock://oracle"})
        ser = ProtobufSerializer(cls, client, {"auto.register.schemas": True, "use.deprecated.format": False})
        data = ser(msg, SerializationContext("t%d" % n, MessageField.VALUE))
        return data[5:].hex() or "empty"
    except Exception as e:  # noqa: BLE001 - the error is the vector
        return "error %s: %s" % (type(e).__name__, str(e).replace("\n", " "))


def main(cases, vectors):
    out, refs, pool, name = [], {}, None, ""
    for n, line in enumerate(open(cases, encoding="utf-8").read().splitlines()):
        out.append(line)
        if line.startswith("ref "):
            path, text = line[4:].split(" ", 1)
            refs[path] = text
        elif line.startswith("schema "):
            refs["main.proto"] = line[7:]
            pool, name, refs = build(refs), "", {}
        elif line.startswith("message"):
            name = line[8:].strip()
        elif line.startswith("value "):
            out.append("=> " + encode(pool, name, line[6:], n))
    with open(vectors, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
