// dmlc/registry.h: a named registry of entries (functions, operators, ...) filled during
// static initialization and looked up by name afterwards.
//
//   struct TreeFactory : public dmlc::FunctionRegEntryBase<TreeFactory, Tree* (*)()> {};
//   DMLC_REGISTRY_ENABLE(TreeFactory);                 // in one .cc file
//
//   DMLC_REGISTRY_REGISTER(TreeFactory, TreeFactory, oak)
//       .describe("An oak.")
//       .set_body([]() -> Tree* { return new Oak(); });
//
//   const TreeFactory* f = dmlc::Registry<TreeFactory>::Find("oak");   // nullptr if unknown
//
// Thread safety: registration (also from libraries loaded later) is serialized by a mutex,
// and Find/ListAllNames take a shared lock, so lookups from many threads are safe at any
// time. Entries never move or die before the process ends: a pointer from Find stays valid.
// List() returns the registry's own vector; use it once registration is over.
#ifndef DMLC_REGISTRY_H_
#define DMLC_REGISTRY_H_

#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "dmlc/base.h"
#include "dmlc/logging.h"
#include "dmlc/parameter.h"

namespace dmlc {

template <typename EntryType>
class Registry {
 public:
  // Every entry, in registration order.
  static const std::vector<const EntryType*>& List() { return Get()->const_list_; }

  // Every name and alias, sorted.
  static std::vector<std::string> ListAllNames() {
    const Registry* registry = Get();
    std::shared_lock<std::shared_mutex> lock(registry->mutex_);
    std::vector<std::string> names;
    names.reserve(registry->fmap_.size());
    for (const auto& [name, entry] : registry->fmap_) names.push_back(name);
    return names;
  }

  // The entry registered under `name` (or an alias of it), or nullptr.
  static const EntryType* Find(std::string_view name) {
    const Registry* registry = Get();
    std::shared_lock<std::shared_mutex> lock(registry->mutex_);
    const auto it = registry->fmap_.find(name);
    return it == registry->fmap_.end() ? nullptr : it->second;
  }

  // Makes `alias` another name of the entry `key_name`; re-adding the same alias to the same
  // entry is allowed, to another entry is a dmlc::Error.
  void AddAlias(const std::string& key_name, const std::string& alias) {
    std::unique_lock<std::shared_mutex> lock(mutex_);
    const auto key = fmap_.find(key_name);
    CHECK(key != fmap_.end()) << "cannot add alias " << alias << ": " << key_name
                              << " is not registered";
    const auto existing = fmap_.find(alias);
    if (existing != fmap_.end()) {
      CHECK(existing->second == key->second)
          << "alias " << alias << " already names a different entry than " << key_name;
      return;
    }
    fmap_.emplace(alias, key->second);
  }

  // Creates the entry `name`; registering a name twice is a dmlc::Error.
  EntryType& __REGISTER__(const std::string& name) {
    std::unique_lock<std::shared_mutex> lock(mutex_);
    CHECK_EQ(fmap_.count(name), 0U) << name << " already registered";
    return AddLocked(name);
  }

  // The entry `name`, created if it does not exist yet.
  EntryType& __REGISTER_OR_GET__(const std::string& name) {
    std::unique_lock<std::shared_mutex> lock(mutex_);
    const auto it = fmap_.find(name);
    if (it != fmap_.end()) return *it->second;
    return AddLocked(name);
  }

  // The registry of EntryType; defined by DMLC_REGISTRY_ENABLE(EntryType).
  static Registry* Get();

 private:
  Registry() = default;

  EntryType& AddLocked(const std::string& name) {
    entries_.push_back(std::make_unique<EntryType>());
    EntryType* e = entries_.back().get();
    e->name = name;
    fmap_.emplace(name, e);
    const_list_.push_back(e);
    return *e;
  }

  mutable std::shared_mutex mutex_;
  std::vector<std::unique_ptr<EntryType>> entries_;
  std::vector<const EntryType*> const_list_;
  std::map<std::string, EntryType*, std::less<>> fmap_;
};

// A convenient base for registry entries that wrap a function: name, description,
// documented arguments, return type and the function itself.
template <typename EntryType, typename FunctionType>
class FunctionRegEntryBase {
 public:
  std::string name;
  std::string description;
  std::vector<ParamFieldInfo> arguments;
  FunctionType body;
  std::string return_type;

  EntryType& set_body(FunctionType function) {
    body = function;
    return self();
  }
  EntryType& describe(const std::string& text) {
    description = text;
    return self();
  }
  EntryType& add_argument(const std::string& arg_name, const std::string& type,
                          const std::string& arg_description) {
    ParamFieldInfo info;
    info.name = arg_name;
    info.type = type;
    info.type_info_str = type;
    info.description = arg_description;
    arguments.push_back(info);
    return self();
  }
  EntryType& add_arguments(const std::vector<ParamFieldInfo>& args) {
    arguments.insert(arguments.end(), args.begin(), args.end());
    return self();
  }
  EntryType& set_return_type(const std::string& type) {
    return_type = type;
    return self();
  }

 protected:
  EntryType& self() { return *static_cast<EntryType*>(this); }
};

}  // namespace dmlc

// Defines the registry of EntryType; put it in exactly one .cc file.
#define DMLC_REGISTRY_ENABLE(EntryType)                             \
  template <>                                                       \
  ::dmlc::Registry<EntryType>* ::dmlc::Registry<EntryType>::Get() { \
    static ::dmlc::Registry<EntryType> inst;                        \
    return &inst;                                                   \
  }

// Registers a new entry `Name` (an identifier) and returns it for chained setters.
#define DMLC_REGISTRY_REGISTER(EntryType, EntryTypeName, Name)                 \
  static DMLC_ATTRIBUTE_UNUSED EntryType& __make_##EntryTypeName##_##Name##__ = \
      ::dmlc::Registry<EntryType>::Get()->__REGISTER__(#Name)

// Registration in a static library survives linking only if something references the
// object file: DMLC_REGISTRY_FILE_TAG in the file with registrations, DMLC_REGISTRY_LINK_TAG
// in a file that is linked for sure.
#define DMLC_REGISTRY_FILE_TAG(UniqueTag) \
  int __dmlc_registry_file_tag_##UniqueTag##__() { return 0; }

#define DMLC_REGISTRY_LINK_TAG(UniqueTag)                  \
  int __dmlc_registry_file_tag_##UniqueTag##__();          \
  static int DMLC_ATTRIBUTE_UNUSED __reg_file_tag_##UniqueTag##__ = \
      __dmlc_registry_file_tag_##UniqueTag##__();

#endif  // DMLC_REGISTRY_H_
