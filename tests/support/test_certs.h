// Test certificates made with the openssl command line at test time
// (nothing secret is committed): a self-signed certificate for localhost
// and 127.0.0.1, its key, and both in one PEM file (the form of
// ssl.keystore.location). A self-signed certificate is its own CA: a client
// trusts it by loading name.crt, a server takes it as a truststore.
// Header-only; any thread (each call writes its own files).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace skiff::test {

struct TestCert {
  std::filesystem::path key;  // PKCS#8 private key
  std::filesystem::path crt;  // the certificate
  std::filesystem::path pem;  // key + certificate
};

// dir/name.key, dir/name.crt and dir/name.pem for `subject` ("/CN=localhost");
// throws std::runtime_error when openssl fails.
inline TestCert make_self_signed_cert(const std::filesystem::path& dir, const std::string& name,
                                      const std::string& subject = "/CN=localhost") {
  TestCert c{dir / (name + ".key"), dir / (name + ".crt"), dir / (name + ".pem")};
  const std::string command =
      "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -keyout '" + c.key.string() +
      "' -out '" + c.crt.string() + "' -subj '" + subject +
      "' -addext 'subjectAltName=DNS:localhost,IP:127.0.0.1' >/dev/null 2>&1";
  if (std::system(command.c_str()) != 0) throw std::runtime_error("openssl could not make " + c.crt.string());
  std::ifstream k(c.key), crt(c.crt);
  std::ofstream(c.pem) << k.rdbuf() << crt.rdbuf();
  return c;
}

}  // namespace skiff::test
