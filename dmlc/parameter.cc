#include "dmlc/parameter.h"

#include "dmlc/suggest.h"

namespace dmlc {
namespace parameter {

// ----------------------------------------------------------------------- FieldAccessEntry

void FieldAccessEntry::ThrowFormatError(std::string_view value) const {
  throw ParamError("Invalid Parameter format for " + key_ + " expect " + type_ +
                   " but value='" + std::string(value) + "'");
}

void FieldAccessEntry::ThrowParseError(ParseStatus status, std::string_view value,
                                       const std::string& valid) const {
  if (status != ParseStatus::kOutOfRange) ThrowFormatError(value);
  throw ParamError("Invalid Parameter value for " + key_ + ": '" + std::string(value) +
                   "' is out of the range of " + type_ + (valid.empty() ? "" : " " + valid));
}

namespace detail {

ParseStatus ParseBool(std::string_view text, bool* out) {
  const std::string_view word = TrimSpace(text);
  auto equals_ignoring_case = [word](std::string_view lower) {
    if (word.size() != lower.size()) return false;
    for (size_t i = 0; i < word.size(); ++i) {
      const char c = word[i];
      if ((c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c) != lower[i]) return false;
    }
    return true;
  };
  if (equals_ignoring_case("true") || word == "1") {
    *out = true;
  } else if (equals_ignoring_case("false") || word == "0") {
    *out = false;
  } else {
    return ParseStatus::kInvalid;
  }
  return ParseStatus::kOk;
}

// ---------------------------------------------------------------------------- EnumNames

void EnumNames::Add(const std::string& field, const std::string& name, int value) {
  if (by_name_.count(name) != 0 || by_value_.count(value) != 0) {
    std::ostringstream os;
    os << "Enum (" << name << ":" << value << ") of " << field
       << " repeats a name or value already declared. Enums: ";
    for (const auto& [existing_name, existing_value] : by_name_) {
      os << "(" << existing_name << ":" << existing_value << "), ";
    }
    throw ParamError(os.str());
  }
  by_name_.emplace(name, value);
  by_value_.emplace(value, name);
}

const int* EnumNames::FindValue(std::string_view name) const {
  const auto it = by_name_.find(TrimSpace(name));
  return it == by_name_.end() ? nullptr : &it->second;
}

const std::string* EnumNames::FindName(int value) const {
  const auto it = by_value_.find(value);
  return it == by_value_.end() ? nullptr : &it->second;
}

void EnumNames::Print(std::ostream& os) const {
  os << '{';
  for (auto it = by_name_.begin(); it != by_name_.end(); ++it) {
    if (it != by_name_.begin()) os << ", ";
    os << '\'' << it->first << '\'';
  }
  os << '}';
}

void EnumNames::ThrowInvalid(const std::string& field, std::string_view value) const {
  std::ostringstream os;
  os << "Invalid Input: '" << value << "' for " << field << ", valid values are: ";
  Print(os);
  throw ParamError(os.str());
}

}  // namespace detail

// --------------------------------------------------------------------------- FieldEntry<int>

ParamFieldInfo FieldEntry<int>::GetFieldInfo() const {
  if (enums_.empty()) return Parent::GetFieldInfo();
  ParamFieldInfo info;
  info.name = key_;
  info.type = type_;
  std::ostringstream os;
  enums_.Print(os);
  AppendDefaultInfo(os);
  info.type_info_str = os.str();
  info.description = description_;
  return info;
}

void FieldEntry<int>::PrintValue(std::ostream& os, int value) const {
  if (enums_.empty()) {
    os << value;
    return;
  }
  const std::string* name = enums_.FindName(value);
  CHECK(name != nullptr) << "value " << value << " of " << key_
                         << " is not one of its enum values";
  os << *name;
}

void FieldEntry<int>::PrintDefaultValueString(std::ostream& os) const {
  if (enums_.empty()) return Parent::PrintDefaultValueString(os);
  os << '\'';
  PrintValue(os, default_value_);
  os << '\'';
}

// ------------------------------------------------------------------------------ ParamManager

void ParamManager::AddEntry(const std::string& key, FieldAccessEntry* e) {
  std::unique_ptr<FieldAccessEntry> owned(e);
  CHECK_EQ(entry_map_.count(key), 0U)
      << "key " << key << " has already been registered in " << name_;
  e->index_ = entry_.size();
  entry_map_.emplace(key, e);
  entry_.push_back(std::move(owned));
}

void ParamManager::AddAlias(const std::string& field, const std::string& alias) {
  const auto it = entry_map_.find(field);
  CHECK(it != entry_map_.end()) << "key " << field << " has not been registered in " << name_;
  CHECK_EQ(entry_map_.count(alias), 0U)
      << "Alias " << alias << " has already been registered in " << name_;
  FieldAccessEntry* e = it->second;
  entry_map_.emplace(alias, e);
}

std::vector<ParamFieldInfo> ParamManager::GetFieldInfo() const {
  std::vector<ParamFieldInfo> fields;
  fields.reserve(entry_.size());
  for (const auto& entry : entry_) fields.push_back(entry->GetFieldInfo());
  return fields;
}

void ParamManager::PrintDocString(std::ostream& os) const {
  for (const auto& entry : entry_) {
    const ParamFieldInfo info = entry->GetFieldInfo();
    os << info.name << " : " << info.type_info_str << '\n';
    if (!info.description.empty()) os << "    " << info.description << '\n';
  }
}

std::vector<std::pair<std::string, std::string>> ParamManager::GetDict(void* head) const {
  std::vector<std::pair<std::string, std::string>> dict;
  dict.reserve(entry_.size());
  for (const auto& entry : entry_) dict.emplace_back(entry->key_, entry->GetStringValue(head));
  return dict;
}

void ParamManager::ThrowUnknownArgument(std::string_view key) const {
  std::vector<std::string> names;
  names.reserve(entry_map_.size());
  for (const auto& [name, entry] : entry_map_) names.push_back(name);
  std::ostringstream os;
  os << "Cannot find argument '" << key << "'" << (name_.empty() ? "" : " of " + name_) << "."
     << DidYouMean(key, names) << " Possible Arguments:\n----------------\n";
  PrintDocString(os);
  throw ParamError(os.str());
}

}  // namespace parameter
}  // namespace dmlc
