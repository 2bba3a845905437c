// getgrouplist grows its buffer by the count it reports; getgrgid_r by ERANGE.
#include "platform/nss.hpp"

#include <grp.h>
#include <sys/types.h>

#include <cerrno>

namespace amdml::platform {

std::optional<std::vector<NssGroup>> nss_user_groups(const std::string& user, std::uint32_t gid) {
  if (user.empty()) return std::nullopt;
  int n = 32;
  std::vector<gid_t> gids;
  for (int tries = 0; tries < 8; ++tries) {
    gids.assign(static_cast<std::size_t>(n), 0);
    int want = n;
    if (getgrouplist(user.c_str(), static_cast<gid_t>(gid), gids.data(), &want) >= 0) {
      gids.resize(static_cast<std::size_t>(want));
      break;
    }
    if (want <= n) return std::nullopt;  // an NSS error, not a short buffer
    n = want;
    gids.clear();
  }
  if (gids.empty()) return std::nullopt;
  std::vector<NssGroup> out;
  std::vector<char> buf(4096);
  for (gid_t g : gids) {
    NssGroup e;
    e.gid = static_cast<std::uint32_t>(g);
    struct group gr {};
    struct group* res = nullptr;
    int rc = 0;
    while ((rc = getgrgid_r(g, &gr, buf.data(), buf.size(), &res)) == ERANGE && buf.size() < (1u << 20))
      buf.resize(buf.size() * 2);
    if (rc == 0 && res && res->gr_name) e.name = res->gr_name;
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace amdml::platform
