// ClientQuotaStore (api/quota/client_quota_store.h): Kafka 4.4's validation
// and messages (ClientQuotaControlManager), DescribeClientQuotas' match
// semantics (ClientQuotasImage), the resolution order of DefaultQuotaCallback,
// removal, the stored quotas read back (the metadata store's
// "client-quotas"), corrupt ones refused, a failed write that changes
// nothing, and generation().
#include "api/quota/client_quota_store.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <limits>
#include <set>

#include "metadata/metadata_store.h"
#include "tests/support/metadata_store.h"
#include "tests/support/temp_dir.h"

using namespace skiff;
using namespace skiff::api;
using namespace skiff::api::quota;

namespace {

using Name = std::optional<std::string>;

QuotaEntity entity(std::initializer_list<std::pair<const std::string, Name>> parts) { return QuotaEntity(parts); }

QuotaAlteration assign(QuotaEntity e, std::string key, double value) {
  return {std::move(e), {{std::move(key), value, false}}};
}

QuotaAlteration unset(QuotaEntity e, std::string key) { return {std::move(e), {{std::move(key), 0, true}}}; }

// The one result of altering one entity.
QuotaError alter1(ClientQuotaStore& store, QuotaAlteration alt, bool validate_only = false) {
  auto results = store.alter({std::move(alt)}, validate_only);
  REQUIRE(results.size() == 1);
  return results[0];
}

std::string message(ClientQuotaStore& store, QuotaAlteration alt) {
  auto r = alter1(store, std::move(alt));
  CHECK(r.error == ErrorCode::kInvalidRequest);
  return r.message;
}

QuotaFilterComponent exact(std::string type, std::string name) {
  return {std::move(type), QuotaFilterComponent::kExact, std::move(name)};
}
QuotaFilterComponent by_default(std::string type) {
  return {std::move(type), QuotaFilterComponent::kDefault, std::nullopt};
}
QuotaFilterComponent specified(std::string type) {
  return {std::move(type), QuotaFilterComponent::kSpecified, std::nullopt};
}

std::set<QuotaEntity> entities(const DescribedQuotas& d) {
  REQUIRE(d.error.error == ErrorCode::kNone);
  std::set<QuotaEntity> out;
  for (const auto& [e, values] : d.entries) out.insert(e);
  return out;
}

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

const QuotaEntity kUserU = entity({{"user", "u"}});
const QuotaEntity kUserDefault = entity({{"user", std::nullopt}});
const QuotaEntity kClientC = entity({{"client-id", "c"}});
const QuotaEntity kClientDefault = entity({{"client-id", std::nullopt}});
const QuotaEntity kUserUClientC = entity({{"user", "u"}, {"client-id", "c"}});
const QuotaEntity kUserUClientDefault = entity({{"user", "u"}, {"client-id", std::nullopt}});
const QuotaEntity kUserDefaultClientC = entity({{"user", std::nullopt}, {"client-id", "c"}});
const QuotaEntity kUserDefaultClientDefault = entity({{"user", std::nullopt}, {"client-id", std::nullopt}});

}  // namespace

TEST_CASE("client quotas: Kafka's entity checks and messages", "[api][quota]") {
  ClientQuotaStore store(nullptr);
  CHECK(message(store, assign({}, "producer_byte_rate", 1)) == "Invalid empty client quota entity");
  CHECK(message(store, assign(entity({{"group", "g"}}), "producer_byte_rate", 1)) ==
        "Unhandled client quota entity type: group");
  CHECK(message(store, assign(entity({{"user", ""}}), "producer_byte_rate", 1)) == "Empty user not supported");
  CHECK(message(store, assign(entity({{"client-id", ""}}), "producer_byte_rate", 1)) ==
        "Empty client-id not supported");
  // Kafka's message, missing space and all.
  CHECK(message(store, assign(entity({{"ip", "1.2.3.4"}, {"user", "u"}}), "connection_creation_rate", 1)) ==
        "Invalid quota entity combination, IP entity shouldnot be combined with User or ClientId");
  CHECK(message(store, assign(entity({{"ip", "not-an-ip"}}), "connection_creation_rate", 1)) ==
        "not-an-ip is not a valid IP or resolvable host.");
  CHECK(message(store, assign(entity({{"ip", "1.2.3.256"}}), "connection_creation_rate", 1)) ==
        "1.2.3.256 is not a valid IP or resolvable host.");
  // Java's HashMap walks client-id before user: its error comes first.
  CHECK(message(store, assign(entity({{"user", ""}, {"client-id", ""}}), "producer_byte_rate", 1)) ==
        "Empty client-id not supported");
  for (const auto& e : {kUserU, kUserDefault, kClientC, kUserUClientDefault, kUserDefaultClientDefault,
                        entity({{"ip", "10.0.0.1"}}), entity({{"ip", "::1"}}), entity({{"ip", std::nullopt}})}) {
    const std::string key = e.contains("ip") ? "connection_creation_rate" : "producer_byte_rate";
    CHECK(alter1(store, assign(e, key, 100)).error == ErrorCode::kNone);
  }
}

TEST_CASE("client quotas: Kafka's key and value checks and messages", "[api][quota]") {
  ClientQuotaStore store(nullptr);
  const auto ip = entity({{"ip", "1.2.3.4"}});
  CHECK(message(store, assign(kUserU, "connection_creation_rate", 1)) ==
        "Invalid configuration key connection_creation_rate");
  CHECK(message(store, assign(ip, "producer_byte_rate", 1)) == "Invalid configuration key producer_byte_rate");
  CHECK(message(store, assign(kUserU, "no_such_key", 1)) == "Invalid configuration key no_such_key");
  CHECK(message(store, assign(kUserU, "producer_byte_rate", 0)) == "Quota producer_byte_rate must be greater than 0");
  CHECK(message(store, assign(kUserU, "request_percentage", -1)) == "Quota request_percentage must be greater than 0");
  CHECK(message(store, assign(kUserU, "request_percentage", std::nan(""))) ==
        "Quota request_percentage must be a finite number");
  CHECK(message(store, assign(kUserU, "producer_byte_rate", std::numeric_limits<double>::infinity())) ==
        "Quota producer_byte_rate must be a finite number");
  CHECK(message(store, assign(kUserU, "consumer_byte_rate", 1.5)) ==
        "consumer_byte_rate cannot be a fractional value.");
  CHECK(message(store, assign(kUserU, "producer_byte_rate", 1e19)) ==
        "Proposed value for producer_byte_rate is too large for a LONG.");
  CHECK(message(store, assign(ip, "connection_creation_rate", 2147483648.0)) ==
        "Proposed value for connection_creation_rate is too large for an INT.");
  CHECK(message(store, assign(ip, "connection_creation_rate", 2.5)) ==
        "connection_creation_rate cannot be a fractional value.");
  // DOUBLE keys take fractions; integral ones within 1e-6 of an integer pass.
  CHECK(alter1(store, assign(kUserU, "request_percentage", 12.5)).error == ErrorCode::kNone);
  CHECK(alter1(store, assign(kUserU, "controller_mutation_rate", 0.5)).error == ErrorCode::kNone);
  CHECK(alter1(store, assign(kUserU, "producer_byte_rate", 1024.0000001)).error == ErrorCode::kNone);
  CHECK(alter1(store, assign(ip, "connection_creation_rate", 2147483647)).error == ErrorCode::kNone);
  // Removing a key is not checked: an unknown one is a no-op.
  CHECK(alter1(store, unset(kUserU, "no_such_key")).error == ErrorCode::kNone);
  // A refused entry changes nothing, even its valid ops.
  QuotaAlteration mixed{kClientC, {{"producer_byte_rate", 10, false}, {"consumer_byte_rate", 0.5, false}}};
  CHECK(alter1(store, mixed).error == ErrorCode::kInvalidRequest);
  CHECK(entities(store.describe({exact("client-id", "c")}, false)).empty());
}

TEST_CASE("client quotas: a repeated key or entity is ignored with Kafka's message", "[api][quota]") {
  ClientQuotaStore store(nullptr);
  QuotaAlteration twice{kUserUClientC, {{"producer_byte_rate", 10, false}, {"producer_byte_rate", 0, true}}};
  CHECK(message(store, twice) == "Ignoring duplicate entity ClientQuotaEntity(entries={client-id=c, user=u})");
  auto results =
      store.alter({assign(kUserDefault, "producer_byte_rate", 10), assign(kUserDefault, "consumer_byte_rate", 20),
                   assign(kClientC, "producer_byte_rate", 30)},
                  false);
  REQUIRE(results.size() == 3);
  CHECK(results[0].error == ErrorCode::kNone);  // applied, as Kafka's records of the first
  CHECK(results[1].error == ErrorCode::kInvalidRequest);
  CHECK(results[1].message == "Ignoring duplicate entity ClientQuotaEntity(entries={user=null})");
  CHECK(results[2].error == ErrorCode::kNone);
  auto d = store.describe({}, false);
  REQUIRE(d.entries.size() == 2);
  CHECK(d.entries[0].first == kClientC);
  CHECK(d.entries[1].first == kUserDefault);
  CHECK(d.entries[1].second == QuotaValues{{"producer_byte_rate", 10}});
}

TEST_CASE("client quotas: set, overwrite, remove, an entity without keys is gone", "[api][quota]") {
  ClientQuotaStore store(nullptr);
  QuotaAlteration two{kUserU, {{"producer_byte_rate", 1024, false}, {"consumer_byte_rate", 2048, false}}};
  CHECK(alter1(store, two).error == ErrorCode::kNone);
  CHECK(alter1(store, assign(kUserU, "producer_byte_rate", 4096)).error == ErrorCode::kNone);
  auto d = store.describe({exact("user", "u")}, true);
  REQUIRE(d.entries.size() == 1);
  CHECK(d.entries[0].second == QuotaValues{{"consumer_byte_rate", 2048}, {"producer_byte_rate", 4096}});
  CHECK(store.has_key("producer_byte_rate"));
  CHECK(alter1(store, unset(kUserU, "producer_byte_rate")).error == ErrorCode::kNone);
  CHECK_FALSE(store.has_key("producer_byte_rate"));
  CHECK(store.has_key("consumer_byte_rate"));
  CHECK(alter1(store, unset(kUserU, "consumer_byte_rate")).error == ErrorCode::kNone);
  CHECK(store.describe({}, false).entries.empty());
  CHECK_FALSE(store.has_key("consumer_byte_rate"));
  // validate_only checks and changes nothing.
  CHECK(alter1(store, assign(kUserU, "producer_byte_rate", 1), true).error == ErrorCode::kNone);
  CHECK(alter1(store, assign(kUserU, "producer_byte_rate", 0), true).error == ErrorCode::kInvalidRequest);
  CHECK(store.describe({}, false).entries.empty());
}

TEST_CASE("client quotas: describe's exact, default and specified matches, strict or not", "[api][quota]") {
  ClientQuotaStore store(nullptr);
  const auto ip = entity({{"ip", "1.2.3.4"}});
  const auto ip_default = entity({{"ip", std::nullopt}});
  for (const auto& e : {kUserU, kUserDefault, kClientC, kClientDefault, kUserUClientC, kUserUClientDefault,
                        kUserDefaultClientC, kUserDefaultClientDefault})
    REQUIRE(alter1(store, assign(e, "producer_byte_rate", 1)).error == ErrorCode::kNone);
  REQUIRE(alter1(store, assign(ip, "connection_creation_rate", 1)).error == ErrorCode::kNone);
  REQUIRE(alter1(store, assign(ip_default, "connection_creation_rate", 1)).error == ErrorCode::kNone);
  using Set = std::set<QuotaEntity>;
  CHECK(entities(store.describe({}, false)).size() == 10);
  CHECK(entities(store.describe({}, true)).empty());
  CHECK(entities(store.describe({exact("user", "u")}, false)) == Set{kUserU, kUserUClientC, kUserUClientDefault});
  CHECK(entities(store.describe({exact("user", "u")}, true)) == Set{kUserU});
  CHECK(entities(store.describe({by_default("user")}, true)) == Set{kUserDefault});
  CHECK(entities(store.describe({by_default("user")}, false)) ==
        Set{kUserDefault, kUserDefaultClientC, kUserDefaultClientDefault});
  // Specified is any entity with the type, the default one included (Kafka's ClientQuotasImage).
  CHECK(entities(store.describe({specified("user")}, true)) == Set{kUserU, kUserDefault});
  CHECK(entities(store.describe({specified("client-id")}, false)) == Set{kClientC, kClientDefault, kUserUClientC,
                                                                         kUserUClientDefault, kUserDefaultClientC,
                                                                         kUserDefaultClientDefault});
  CHECK(entities(store.describe({exact("user", "u"), by_default("client-id")}, true)) == Set{kUserUClientDefault});
  CHECK(entities(store.describe({specified("user"), exact("client-id", "c")}, true)) ==
        Set{kUserUClientC, kUserDefaultClientC});
  CHECK(entities(store.describe({specified("ip")}, false)) == Set{ip, ip_default});
  CHECK(entities(store.describe({exact("ip", "1.2.3.4")}, true)) == Set{ip});
  CHECK(entities(store.describe({exact("user", "nobody")}, false)).empty());
  auto values = store.describe({exact("user", "u")}, true).entries.at(0).second;
  CHECK(values == QuotaValues{{"producer_byte_rate", 1}});
}

TEST_CASE("client quotas: describe refuses bad filters with Kafka's messages", "[api][quota]") {
  ClientQuotaStore store(nullptr);
  auto error = [&](const std::vector<QuotaFilterComponent>& components) {
    return store.describe(components, false).error;
  };
  CHECK(error({exact("", "x")}).message == "Invalid empty entity type.");
  CHECK(error({exact("user", "a"), by_default("user")}).message ==
        "Entity type user cannot appear more than once in the filter.");
  auto unsupported = error({specified("group")});
  CHECK(unsupported.error == ErrorCode::kUnsupportedVersion);
  CHECK(unsupported.message == "Unsupported entity type group");
  CHECK(error({{"user", QuotaFilterComponent::kExact, std::nullopt}}).message ==
        "Request specified MATCH_TYPE_EXACT, but set match string to null.");
  CHECK(error({{"user", QuotaFilterComponent::kDefault, "x"}}).message ==
        "Request specified MATCH_TYPE_DEFAULT, but also specified a match string.");
  CHECK(error({{"user", QuotaFilterComponent::kSpecified, "x"}}).message ==
        "Request specified MATCH_TYPE_SPECIFIED, but also specified a match string.");
  CHECK(error({{"user", 7, std::nullopt}}).message == "Unknown match type 7");
  auto mixed = error({specified("ip"), exact("client-id", "c")});
  CHECK(mixed.error == ErrorCode::kInvalidRequest);
  CHECK(mixed.message ==
        "Invalid entity filter component combination. IP filter component should not be used with user or clientId "
        "filter component.");
  CHECK(store.describe({specified("user")}, false).entries.empty());  // a good filter, nothing stored
}

TEST_CASE("client quotas: resolve walks DefaultQuotaCallback's eight levels in order", "[api][quota]") {
  ClientQuotaStore store(nullptr);
  CHECK_FALSE(store.resolve("producer_byte_rate", "u", "c"));
  // Most specific first; each level set with its number, then removed again.
  const std::vector<QuotaEntity> levels = {
      kUserUClientC, kUserUClientDefault, kUserU, kUserDefaultClientC, kUserDefaultClientDefault, kUserDefault,
      kClientC,      kClientDefault};
  const std::vector<std::pair<bool, bool>> shapes = {{true, true}, {true, true},  {true, false}, {true, true},
                                                     {true, true}, {true, false}, {false, true}, {false, true}};
  for (size_t i = 0; i < levels.size(); ++i)
    REQUIRE(alter1(store, assign(levels[i], "producer_byte_rate", static_cast<double>(i + 1))).error ==
            ErrorCode::kNone);
  for (size_t i = 0; i < levels.size(); ++i) {
    INFO("level " << i + 1);
    auto q = store.resolve("producer_byte_rate", "u", "c");
    REQUIRE(q);
    CHECK(q->value == static_cast<double>(i + 1));
    CHECK(q->by_user == shapes[i].first);
    CHECK(q->by_client_id == shapes[i].second);
    REQUIRE(alter1(store, unset(levels[i], "producer_byte_rate")).error == ErrorCode::kNone);
  }
  CHECK_FALSE(store.resolve("producer_byte_rate", "u", "c"));
}

TEST_CASE("client quotas: resolve per key, per client, and with empty names", "[api][quota]") {
  ClientQuotaStore store(nullptr);
  REQUIRE(alter1(store, assign(kUserU, "producer_byte_rate", 100)).error == ErrorCode::kNone);
  REQUIRE(alter1(store, assign(kClientDefault, "consumer_byte_rate", 200)).error == ErrorCode::kNone);
  REQUIRE(alter1(store, assign(kUserDefaultClientDefault, "request_percentage", 50)).error == ErrorCode::kNone);
  // Each key has its own walk.
  CHECK(store.resolve("producer_byte_rate", "u", "any")->value == 100);
  CHECK_FALSE(store.resolve("producer_byte_rate", "other", "any"));
  auto consumer = store.resolve("consumer_byte_rate", "u", "any");
  REQUIRE(consumer);
  CHECK(consumer->value == 200);
  CHECK_FALSE(consumer->by_user);
  CHECK(consumer->by_client_id);
  CHECK(store.resolve("request_percentage", "anyone", "any")->value == 50);
  CHECK_FALSE(store.resolve("controller_mutation_rate", "u", "c"));
  // An empty client-id sees the user levels only; an empty user the client-id ones.
  CHECK(store.resolve("producer_byte_rate", "u", "")->value == 100);
  CHECK_FALSE(store.resolve("request_percentage", "u", ""));
  CHECK_FALSE(store.resolve("producer_byte_rate", "", "c"));
  CHECK(store.resolve("consumer_byte_rate", "", "c")->value == 200);
  CHECK_FALSE(store.resolve("consumer_byte_rate", "", ""));
  // Names are compared exactly.
  CHECK_FALSE(store.resolve("producer_byte_rate", "U", "c"));
}

TEST_CASE("client quotas: resolve_ip, the address's own entity or the default", "[api][quota]") {
  ClientQuotaStore store(nullptr);
  CHECK_FALSE(store.resolve_ip("127.0.0.1"));
  REQUIRE(alter1(store, assign(entity({{"ip", "127.0.0.1"}}), "connection_creation_rate", 10)).error ==
          ErrorCode::kNone);
  REQUIRE(alter1(store, assign(entity({{"ip", "0:0:0:0:0:0:0:1"}}), "connection_creation_rate", 20)).error ==
          ErrorCode::kNone);
  CHECK(store.resolve_ip("127.0.0.1") == 10);
  CHECK(store.resolve_ip("::ffff:127.0.0.1") == 10);  // the same address, as Java's InetAddress
  CHECK(store.resolve_ip("::1") == 20);
  CHECK_FALSE(store.resolve_ip("10.0.0.1"));
  REQUIRE(alter1(store, assign(entity({{"ip", std::nullopt}}), "connection_creation_rate", 5)).error ==
          ErrorCode::kNone);
  CHECK(store.resolve_ip("10.0.0.1") == 5);
  CHECK(store.resolve_ip("127.0.0.1") == 10);
  CHECK(store.has_key("connection_creation_rate"));
  CHECK_FALSE(store.has_key("producer_byte_rate"));
}

TEST_CASE("client quotas: stored, read back, generation bumps per applied change", "[api][quota]") {
  test::TempDir dir;
  {
    auto meta = test::open_metadata(dir.path());
    const auto file = meta->ns(metadata::kClientQuotas).file();
    ClientQuotaStore store(&meta->ns(metadata::kClientQuotas));
    CHECK_FALSE(std::filesystem::exists(file));
    const uint64_t g0 = store.generation();
    QuotaAlteration two{kUserUClientDefault,
                        {{"producer_byte_rate", 1024, false}, {"request_percentage", 12.5, false}}};
    REQUIRE(alter1(store, two).error == ErrorCode::kNone);
    CHECK(store.generation() > g0);
    const uint64_t g1 = store.generation();
    REQUIRE(alter1(store, assign(entity({{"ip", "::1"}}), "connection_creation_rate", 3)).error == ErrorCode::kNone);
    REQUIRE(alter1(store, assign(kUserDefault, "consumer_byte_rate", 1)).error == ErrorCode::kNone);
    CHECK(store.generation() > g1);
    const uint64_t g2 = store.generation();
    CHECK(alter1(store, assign(kUserDefault, "consumer_byte_rate", 0)).error == ErrorCode::kInvalidRequest);
    CHECK(alter1(store, assign(kUserDefault, "consumer_byte_rate", 2), true).error == ErrorCode::kNone);
    CHECK(alter1(store, assign(kUserDefault, "consumer_byte_rate", 1)).error == ErrorCode::kNone);  // unchanged
    CHECK(store.generation() == g2);
  }
  auto meta = test::open_metadata(dir.path());
  ClientQuotaStore again(&meta->ns(metadata::kClientQuotas));
  auto d = again.describe({}, false);
  REQUIRE(d.entries.size() == 3);  // in QuotaEntity order
  CHECK(d.entries[0].first == kUserUClientDefault);
  CHECK(d.entries[0].second == QuotaValues{{"producer_byte_rate", 1024}, {"request_percentage", 12.5}});
  CHECK(d.entries[1].first == entity({{"ip", "::1"}}));
  CHECK(d.entries[1].second == QuotaValues{{"connection_creation_rate", 3}});
  CHECK(d.entries[2].first == kUserDefault);
  CHECK(d.entries[2].second == QuotaValues{{"consumer_byte_rate", 1}});
  CHECK(again.resolve("producer_byte_rate", "u", "x")->value == 1024);
  CHECK(again.resolve_ip("::1") == 3);
}

TEST_CASE("client quotas: corrupt ones are refused at load", "[api][quota]") {
  test::TempDir dir;
  auto meta = test::open_metadata(dir.path());
  auto& ns = meta->ns(metadata::kClientQuotas);
  const auto file = ns.file();
  {
    ClientQuotaStore store(&ns);
    REQUIRE(alter1(store, assign(kUserU, "producer_byte_rate", 1024)).error == ErrorCode::kNone);
  }
  const std::string good = read(file);
  auto load_of = [&](const std::string& bytes) {
    std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
    ClientQuotaStore store(&ns);
  };
  std::string flipped = good;
  flipped[20] ^= 1;
  CHECK_THROWS_WITH(load_of(flipped), Catch::Contains("is corrupt: CRC mismatch"));
  CHECK_THROWS_WITH(load_of(good.substr(0, good.size() - 1)), Catch::Contains("is corrupt"));
  CHECK_THROWS_WITH(load_of("SKIFFXXX" + good.substr(8)), Catch::Contains("bad magic"));
  CHECK_THROWS_WITH(load_of(""), Catch::Contains("is corrupt"));
  // Framed correctly, but an entity type the layout does not know.
  std::string record("\x01\x07\x00\x00\x00\x00\x00", 7);
  CHECK_THROWS_WITH(load_of(metadata::MetadataStore::encode(metadata::kClientQuotas, {record})),
                    Catch::Contains(file.string() + " is corrupt: unknown entity type 7"));
  CHECK_NOTHROW(load_of(good));
}

TEST_CASE("client quotas: a failed write answers UNKNOWN_SERVER_ERROR and changes nothing", "[api][quota]") {
  test::TempDir dir;
  auto meta = test::open_metadata(dir.path());
  const auto file = meta->ns(metadata::kClientQuotas).file();
  ClientQuotaStore store(&meta->ns(metadata::kClientQuotas));
  REQUIRE(alter1(store, assign(kUserU, "producer_byte_rate", 1024)).error == ErrorCode::kNone);
  const std::string before = read(file);
  const uint64_t generation = store.generation();
  // The temporary file the store writes cannot be opened (root or not).
  auto tmp = file;
  tmp += ".tmp";
  std::filesystem::create_directory(tmp);
  auto results =
      store.alter({assign(kUserU, "producer_byte_rate", 2048), assign(kClientC, "producer_byte_rate", 0)}, false);
  REQUIRE(results.size() == 2);
  CHECK(results[0].error == ErrorCode::kUnknownServerError);
  CHECK(results[1].error == ErrorCode::kInvalidRequest);  // its own refusal stands
  CHECK(store.resolve("producer_byte_rate", "u", "c")->value == 1024);
  CHECK(store.generation() == generation);
  CHECK(read(file) == before);
  std::filesystem::remove(tmp);
  CHECK(alter1(store, assign(kUserU, "producer_byte_rate", 2048)).error == ErrorCode::kNone);
  CHECK(store.resolve("producer_byte_rate", "u", "c")->value == 2048);
}
