// The authorizer's decisions (security/acl): Kafka's StandardAuthorizer semantics
// for literal, prefixed and wildcard patterns, DENY over ALLOW, hosts,
// principals, super users, implied operations, the no-ACL default, the
// filters of DescribeAcls/DeleteAcls, validation, and the stored ACLs (the
// metadata store's "acls" namespace).
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>

#include "metadata/metadata_store.h"
#include "security/acl/acl_store.h"
#include "security/acl/authorizer.h"
#include "tests/support/metadata_store.h"
#include "tests/support/temp_dir.h"

using namespace skiff;
using namespace skiff::acl;

namespace {

Acl make_acl(ResourceType type, std::string name, PatternType pattern, std::string principal, AclOperation op,
             Permission perm = Permission::kAllow, std::string host = "*") {
  return Acl{type, std::move(name), pattern, std::move(principal), std::move(host), op, perm};
}

Acl topic(std::string name, std::string principal, AclOperation op, Permission perm = Permission::kAllow,
          PatternType pattern = PatternType::kLiteral, std::string host = "*") {
  return make_acl(ResourceType::kTopic, std::move(name), pattern, std::move(principal), op, perm, std::move(host));
}

struct Fixture {
  std::filesystem::path dir = test::make_temp_dir("skiff-acl-test");
  std::unique_ptr<metadata::MetadataStore> store = test::open_metadata(dir);
  metadata::Namespace& acls = store->ns(metadata::kAcls);
  std::unique_ptr<Authorizer> authz;

  explicit Fixture(std::vector<std::string> super_users = {}, bool allow_if_none = false) {
    authz = std::make_unique<Authorizer>(AuthorizerConfig{std::move(super_users), allow_if_none, &acls});
  }
  ~Fixture() { std::filesystem::remove_all(dir); }

  void add(const std::vector<Acl>& acls) {
    for (const auto& r : authz->create(acls)) REQUIRE(r.error == ErrorCode::kNone);
  }
  bool can(std::string_view principal, AclOperation op, ResourceType type, std::string_view name,
           std::string_view host = "10.0.0.1") const {
    return authz->authorize(Identity{principal, host}, op, type, name);
  }
  bool can_topic(std::string_view principal, AclOperation op, std::string_view name,
                 std::string_view host = "10.0.0.1") const {
    return can(principal, op, ResourceType::kTopic, name, host);
  }
};

}  // namespace

TEST_CASE("literal, prefixed and wildcard ACLs match as Kafka's", "[acl]") {
  Fixture f;
  f.add({topic("orders", "User:alice", AclOperation::kRead),
         topic("pay", "User:bob", AclOperation::kWrite, Permission::kAllow, PatternType::kPrefixed),
         topic("*", "User:carol", AclOperation::kRead)});
  CHECK(f.can_topic("User:alice", AclOperation::kRead, "orders"));
  CHECK_FALSE(f.can_topic("User:alice", AclOperation::kRead, "orders2"));  // literal is exact
  CHECK_FALSE(f.can_topic("User:alice", AclOperation::kRead, "order"));
  CHECK_FALSE(f.can_topic("User:alice", AclOperation::kWrite, "orders"));
  CHECK(f.can_topic("User:bob", AclOperation::kWrite, "payments"));
  CHECK(f.can_topic("User:bob", AclOperation::kWrite, "pay"));
  CHECK_FALSE(f.can_topic("User:bob", AclOperation::kWrite, "pa"));
  CHECK_FALSE(f.can_topic("User:bob", AclOperation::kWrite, "xpay"));
  CHECK(f.can_topic("User:carol", AclOperation::kRead, "anything"));
  CHECK_FALSE(f.can_topic("User:dave", AclOperation::kRead, "orders"));
  // Another resource type is another world.
  CHECK_FALSE(f.can("User:alice", AclOperation::kRead, ResourceType::kGroup, "orders"));
}

TEST_CASE("a DENY wins over any ALLOW, whichever pattern carries it", "[acl]") {
  Fixture f;
  f.add({topic("*", "User:*", AclOperation::kAll),
         topic("secret", "User:alice", AclOperation::kRead, Permission::kDeny, PatternType::kPrefixed),
         topic("logs", "User:*", AclOperation::kWrite, Permission::kDeny)});
  CHECK(f.can_topic("User:alice", AclOperation::kRead, "public"));
  CHECK_FALSE(f.can_topic("User:alice", AclOperation::kRead, "secret-1"));
  CHECK(f.can_topic("User:bob", AclOperation::kRead, "secret-1"));     // the deny is alice's
  CHECK(f.can_topic("User:alice", AclOperation::kWrite, "secret-1"));  // and for READ only
  CHECK_FALSE(f.can_topic("User:bob", AclOperation::kWrite, "logs"));  // User:* denies everyone
  // A DENY of READ does not deny DESCRIBE (implication is for ALLOW only).
  CHECK(f.can_topic("User:alice", AclOperation::kDescribe, "secret-1"));
}

TEST_CASE("ALLOW of READ, WRITE, DELETE or ALTER implies DESCRIBE, ALTER_CONFIGS implies DESCRIBE_CONFIGS", "[acl]") {
  Fixture f;
  f.add({topic("r", "User:a", AclOperation::kRead), topic("w", "User:a", AclOperation::kWrite),
         topic("d", "User:a", AclOperation::kDelete), topic("al", "User:a", AclOperation::kAlter),
         topic("c", "User:a", AclOperation::kCreate), topic("ac", "User:a", AclOperation::kAlterConfigs),
         topic("all", "User:a", AclOperation::kAll)});
  for (auto name : {"r", "w", "d", "al", "all"}) CHECK(f.can_topic("User:a", AclOperation::kDescribe, name));
  CHECK_FALSE(f.can_topic("User:a", AclOperation::kDescribe, "c"));
  CHECK(f.can_topic("User:a", AclOperation::kDescribeConfigs, "ac"));
  CHECK_FALSE(f.can_topic("User:a", AclOperation::kDescribe, "ac"));
  CHECK_FALSE(f.can_topic("User:a", AclOperation::kRead, "w"));
  CHECK(f.can_topic("User:a", AclOperation::kDelete, "all"));
  CHECK(f.can_topic("User:a", AclOperation::kDescribeConfigs, "all"));
}

TEST_CASE("host matching: '*' or the exact client address", "[acl]") {
  Fixture f;
  f.add({topic("t", "User:a", AclOperation::kRead, Permission::kAllow, PatternType::kLiteral, "10.0.0.1"),
         topic("t", "User:a", AclOperation::kWrite, Permission::kDeny, PatternType::kLiteral, "10.0.0.9"),
         topic("t", "User:a", AclOperation::kWrite)});
  CHECK(f.can_topic("User:a", AclOperation::kRead, "t", "10.0.0.1"));
  CHECK_FALSE(f.can_topic("User:a", AclOperation::kRead, "t", "10.0.0.2"));
  CHECK(f.can_topic("User:a", AclOperation::kWrite, "t", "10.0.0.1"));
  CHECK_FALSE(f.can_topic("User:a", AclOperation::kWrite, "t", "10.0.0.9"));
}

TEST_CASE("super users may do anything, the no-ACL default applies only where no ACL names the resource", "[acl]") {
  Fixture strict({"User:admin", "User:ops"});
  strict.add({topic("t", "User:x", AclOperation::kRead, Permission::kDeny)});
  CHECK(strict.can_topic("User:admin", AclOperation::kRead, "t"));
  CHECK(strict.can("User:ops", AclOperation::kAlter, ResourceType::kCluster, kClusterResourceName));
  CHECK_FALSE(strict.can_topic("User:x", AclOperation::kRead, "t"));
  CHECK_FALSE(strict.can_topic("User:y", AclOperation::kRead, "untouched"));  // default: deny

  Fixture open({}, /*allow_if_none=*/true);
  open.add({topic("t", "User:x", AclOperation::kRead)});
  CHECK(open.can_topic("User:y", AclOperation::kRead, "untouched"));  // no ACL at all on it
  CHECK_FALSE(open.can_topic("User:y", AclOperation::kRead, "t"));    // an ACL names t: not for y
  open.add({topic("pre", "User:x", AclOperation::kRead, Permission::kAllow, PatternType::kPrefixed)});
  CHECK_FALSE(open.can_topic("User:y", AclOperation::kRead, "prefix-covered"));
}

TEST_CASE("authorize_any (authorizeByResourceType): an allowed pattern not covered by a deny", "[acl]") {
  Fixture f;
  Identity a{"User:a", "10.0.0.1"};
  CHECK_FALSE(f.authz->authorize_any(a, AclOperation::kWrite, ResourceType::kTopic));
  f.add({topic("t1", "User:a", AclOperation::kWrite)});
  CHECK(f.authz->authorize_any(a, AclOperation::kWrite, ResourceType::kTopic));
  f.add({topic("t", "User:a", AclOperation::kWrite, Permission::kDeny, PatternType::kPrefixed)});
  CHECK_FALSE(f.authz->authorize_any(a, AclOperation::kWrite, ResourceType::kTopic));
  f.add({topic("other", "User:a", AclOperation::kAll, Permission::kAllow, PatternType::kPrefixed)});
  CHECK(f.authz->authorize_any(a, AclOperation::kWrite, ResourceType::kTopic));
  f.add({topic("*", "User:*", AclOperation::kWrite, Permission::kDeny)});
  CHECK_FALSE(f.authz->authorize_any(a, AclOperation::kWrite, ResourceType::kTopic));
}

TEST_CASE("authorized operations: the supported operations the ACLs allow", "[acl]") {
  Fixture f({"User:admin"});
  f.add({topic("t", "User:a", AclOperation::kRead), topic("t", "User:a", AclOperation::kAlterConfigs)});
  auto bit = [](AclOperation op) { return int32_t{1} << static_cast<int>(op); };
  Identity a{"User:a", "1.2.3.4"};
  CHECK(f.authz->authorized_operations(a, ResourceType::kTopic, "t") ==
        (bit(AclOperation::kRead) | bit(AclOperation::kDescribe) | bit(AclOperation::kAlterConfigs) |
         bit(AclOperation::kDescribeConfigs)));
  CHECK(f.authz->authorized_operations(a, ResourceType::kTopic, "u") == 0);
  CHECK(f.authz->authorized_operations({"User:admin", "1.2.3.4"}, ResourceType::kCluster, "kafka-cluster") == 8096);
}

TEST_CASE("filters: ANY, MATCH and exact, as ResourcePatternFilter and AccessControlEntryFilter", "[acl]") {
  Fixture f;
  f.add({topic("orders", "User:a", AclOperation::kRead),
         topic("ord", "User:b", AclOperation::kWrite, Permission::kAllow, PatternType::kPrefixed),
         topic("*", "User:c", AclOperation::kRead),
         make_acl(ResourceType::kGroup, "orders", PatternType::kLiteral, "User:a", AclOperation::kRead)});
  AclFilter any;
  CHECK(f.authz->describe(any).size() == 4);
  AclFilter match;
  match.resource_type = ResourceType::kTopic;
  match.name = "orders";
  match.pattern = PatternType::kMatch;
  CHECK(f.authz->describe(match).size() == 3);  // literal orders, prefixed ord, literal *
  AclFilter exact = match;
  exact.pattern = PatternType::kAny;  // ANY with a name: that exact name, any pattern type
  CHECK(f.authz->describe(exact).size() == 1);
  AclFilter by_principal;
  by_principal.principal = "User:a";
  CHECK(f.authz->describe(by_principal).size() == 2);
  by_principal.operation = AclOperation::kWrite;
  CHECK(f.authz->describe(by_principal).empty());

  auto removed = f.authz->remove({match});
  REQUIRE(removed.size() == 1);
  CHECK(removed[0].deleted.size() == 3);
  CHECK(f.authz->describe(any).size() == 1);
}

TEST_CASE("creation is validated with Kafka's messages, duplicates are accepted once", "[acl]") {
  Fixture f;
  auto results =
      f.authz->create({make_acl(ResourceType::kCluster, "other", PatternType::kLiteral, "User:a", AclOperation::kAlter),
                       topic("", "User:a", AclOperation::kRead), topic("t", "alice", AclOperation::kRead),
                       topic("t", "User:a", AclOperation::kRead, Permission::kAllow, PatternType::kMatch),
                       topic("t", "User:a", AclOperation::kAny), topic("t", "User:a", AclOperation::kRead),
                       topic("t", "User:a", AclOperation::kRead)});
  REQUIRE(results.size() == 7);
  CHECK(results[0].message == "The only valid name for the CLUSTER resource is kafka-cluster");
  CHECK(results[1].message == "Invalid empty resource name");
  CHECK(results[2].message->starts_with("Could not parse principal from `alice`"));
  CHECK(results[3].message == "Invalid patternType MATCH");
  CHECK(results[4].message == "Invalid operation ANY");
  for (int i = 0; i < 5; ++i) CHECK(results[i].error == ErrorCode::kInvalidRequest);
  CHECK(results[5].error == ErrorCode::kNone);
  CHECK(results[6].error == ErrorCode::kNone);
  CHECK(f.authz->describe(AclFilter{}).size() == 1);
}

TEST_CASE("the stored ACLs: kept across a restart, corrupt ones refuse to load", "[acl]") {
  Fixture f;
  f.add({topic("t", "User:a", AclOperation::kRead),
         topic("p", "User:*", AclOperation::kWrite, Permission::kDeny, PatternType::kPrefixed, "10.1.1.1")});
  f.authz->remove({[] {
    AclFilter x;
    x.name = "t";
    return x;
  }()});
  auto reopened = test::open_metadata(f.dir);
  auto& acls = reopened->ns(metadata::kAcls);
  Authorizer again(AuthorizerConfig{{}, false, &acls});
  auto all = again.describe(AclFilter{});
  REQUIRE(all.size() == 1);
  CHECK(all[0] == topic("p", "User:*", AclOperation::kWrite, Permission::kDeny, PatternType::kPrefixed, "10.1.1.1"));
  CHECK(AclStore::decode(AclStore::encode(all[0])) == all[0]);

  // One flipped byte: the store's CRC catches it, and the message names the file.
  std::string bytes = metadata::MetadataStore::encode(metadata::kAcls, {AclStore::encode(all[0])});
  bytes[30] ^= 0x01;
  { std::ofstream(acls.file(), std::ios::binary | std::ios::trunc) << bytes; }
  CHECK_THROWS_WITH(Authorizer(AuthorizerConfig{{}, false, &acls}),
                    Catch::Contains(acls.file().string() + " is corrupt: CRC mismatch"));
  // A record the ACL layout does not allow (an unknown operation), framed correctly.
  std::string record = AclStore::encode(all[0]);
  record[2] = 99;
  REQUIRE(acls.write({record}));
  CHECK_THROWS_WITH(Authorizer(AuthorizerConfig{{}, false, &acls}), Catch::Contains("is corrupt: invalid ACL"));
  REQUIRE(acls.write({AclStore::encode(all[0]).substr(0, 9)}));
  CHECK_THROWS_WITH(Authorizer(AuthorizerConfig{{}, false, &acls}), Catch::Contains("is corrupt: truncated"));
}

// Not run by default (hidden tag): the cost of one check, to report.
//   build/tests/api/acl_tests "[.acl-bench]"
TEST_CASE("cost of a check with 10000 ACLs", "[.acl-bench]") {
  Fixture f;
  std::vector<Acl> acls;
  for (int i = 0; i < 5000; ++i) {
    acls.push_back(topic("topic-" + std::to_string(i), "User:u" + std::to_string(i % 50), AclOperation::kRead));
    acls.push_back(topic("pre-" + std::to_string(i % 400) + "-", "User:u" + std::to_string(i % 50),
                         AclOperation::kWrite, Permission::kAllow, PatternType::kPrefixed));
  }
  f.add(acls);
  // Names and principals built before timing: only the checks are measured.
  std::vector<std::string> names, principals;
  for (int i = 0; i < 1000; ++i) {
    names.push_back(i % 2 ? "topic-" + std::to_string(i * 7 % 5000) : "pre-" + std::to_string(i % 400) + "-x");
    principals.push_back("User:u" + std::to_string(i % 50));
  }
  constexpr int kChecks = 1000000;
  int allowed = 0;
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kChecks; ++i) {
    const int k = i % 1000;
    allowed += f.can_topic(principals[k], k % 2 ? AclOperation::kRead : AclOperation::kWrite, names[k]);
  }
  auto ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() / kChecks;
  WARN("one check among 10000 ACLs: " << ns << " ns; allowed " << allowed << " of " << kChecks);
  CHECK(allowed > 0);
}
