#include "platform/fetch.hpp"

#include <cerrno>

#include "platform/fs.hpp"
#include "platform/process.hpp"

namespace amdml::platform {

Result<std::string> fetch_url(const Host& host, const std::string& url, std::size_t limit) {
  const std::string file = "file://";
  if (url.starts_with(file)) {
    std::string path = url.substr(file.size());
    if (path.empty() || path[0] != '/') return make_error(url + ": a file:// URL needs an absolute path", EINVAL);
    return read_real_file(path, url, limit);
  }
  if (!url.starts_with("https://")) return make_error(url + ": only https:// and file:// are fetched", EINVAL);
  auto r = host.run({"curl", "-fsSL", "--max-time", "60", "--max-filesize", std::to_string(limit), url}, std::chrono::seconds(90));
  if (!r) return make_error("fetching " + url + ": " + r.error().message, r.error().code);
  if (r->timed_out || r->signal || r->exit_code != 0)
    return make_error("fetching " + url + ": curl failed (exit " + std::to_string(r->exit_code) + ")" +
                      (r->err.empty() ? "" : ": " + r->err.substr(0, r->err.find('\n'))), EIO);
  return r->out;
}

Result<std::string> download(const std::string& url, std::size_t limit) {
  const std::string file = "file://";
  if (url.starts_with(file)) {
    std::string path = url.substr(file.size());
    if (path.empty() || path[0] != '/') return make_error(url + ": a file:// URL needs an absolute path", EINVAL);
    return read_real_file(path, url, limit);
  }
  if (!url.starts_with("https://") && !url.starts_with("http://"))
    return make_error(url + ": only https://, http:// and file:// URLs are downloaded", EINVAL);
  if (!find_in_path("curl")) return make_error("downloading " + url + ": curl is not installed", ENOENT);
  RunOptions o;
  o.timeout = std::chrono::seconds(120);
  o.output_limit = limit + 1;
  auto r = run_command({"curl", "-fsSL", "--proto", "=http,https", "--proto-redir", "=http,https", "--max-time", "100",
                        "--connect-timeout", "20", "--max-filesize", std::to_string(limit), "--", url},
                       o);
  if (!r) return make_error("downloading " + url + ": " + r.error().message, r.error().code);
  if (r->timed_out || r->signal || r->exit_code != 0) {
    std::string why = r->err.substr(0, r->err.find('\n'));
    if (why.empty()) why = r->timed_out ? "timed out" : "curl exit " + std::to_string(r->exit_code);
    return make_error("downloading " + url + ": " + why, EIO);
  }
  if (r->out.size() > limit) return make_error("downloading " + url + ": larger than " + std::to_string(limit) + " bytes", EFBIG);
  return r->out;
}

}  // namespace amdml::platform
