// dmlc/parameter.h: declared, validated parameter structs set from string key/value pairs.
//
//   struct FCParam : public dmlc::Parameter<FCParam> {
//     int num_hidden;
//     float learning_rate;
//     std::string act;
//     DMLC_DECLARE_PARAMETER(FCParam) {
//       DMLC_DECLARE_FIELD(num_hidden).set_range(1, 100000).describe("Output units.");
//       DMLC_DECLARE_FIELD(learning_rate).set_default(0.01f);
//       DMLC_DECLARE_FIELD(act).set_default("relu");
//       DMLC_DECLARE_ALIAS(num_hidden, nhidden);
//     }
//   };
//   DMLC_REGISTER_PARAMETER(FCParam);   // in one .cc file
//
//   FCParam param;
//   param.Init(std::map<std::string, std::string>{{"num_hidden", "64"}});
//   // A bad value throws dmlc::ParamError naming the key, the value and what is valid, and
//   // leaves `param` as it was before the call.
//
// dmlc-core's API, with these differences on purpose:
// - Numbers are parsed strictly with std::from_chars (see dmlc/strtonum.h): no streams, no
//   allocation; "3.5" for an int, "1e100" for a float and trailing garbage are errors.
// - Init, Update and Load are transactional: on error the struct keeps its old values.
//   (They parse into a value-initialized scratch struct, so PType must be default
//   constructible, as dmlc-core already required.)
// - Floating point values print in their shortest exact form ("0.1", not "0.100000001").
// - A NaN is outside every declared range.
// - An unknown key's error suggests the closest declared names.
#ifndef DMLC_PARAMETER_H_
#define DMLC_PARAMETER_H_

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "dmlc/base.h"
#include "dmlc/json.h"
#include "dmlc/logging.h"
#include "dmlc/optional.h"
#include "dmlc/strtonum.h"
#include "dmlc/type_traits.h"

namespace dmlc {

// Thrown for every invalid parameter: unknown key, bad format, out of range, missing.
struct ParamError : public Error {
  explicit ParamError(const std::string& message) : Error(message) {}
};

// What a parameter field is, in text: for documentation and catalogues.
struct ParamFieldInfo {
  std::string name;
  std::string type;           // e.g. "int", "float", "boolean", "int or None"
  std::string type_info_str;  // e.g. "int, required"; "{'a', 'b'}, optional, default='a'"
  std::string description;
};

template <typename PType>
struct Parameter;

namespace parameter {

// What Init does with keys that name no field.
enum ParamInitOption {
  kAllowUnknown,  // ignore them
  kAllMatch,      // reject them
  kAllowHidden,   // ignore `__hidden__` keys (two leading and two trailing '_'), reject others
};

class ParamManager;
template <typename PType>
struct ParamManagerSingleton;

// Type-erased access to one field of a parameter struct at `head`.
class FieldAccessEntry {
 public:
  FieldAccessEntry() = default;
  FieldAccessEntry(const FieldAccessEntry&) = delete;
  FieldAccessEntry& operator=(const FieldAccessEntry&) = delete;
  virtual ~FieldAccessEntry() = default;

  // Sets the field to its default; a field without one is a ParamError ("required").
  virtual void SetDefault(void* head) const = 0;
  // Parses `value` into the field; a ParamError if it is not a valid value of the type.
  virtual void Set(void* head, const std::string& value) const = 0;
  // Checks declared constraints (ranges) of the current value.
  virtual void Check(void* /*head*/) const {}
  virtual std::string GetStringValue(void* head) const = 0;
  virtual ParamFieldInfo GetFieldInfo() const = 0;
  // Moves this field's value from the struct at `from_head` to the one at `to_head`.
  virtual void MoveValue(void* from_head, void* to_head) const = 0;

 protected:
  virtual void PrintDefaultValueString(std::ostream& os) const = 0;
  // "Invalid Parameter format for <key> expect <type> but value='<value>'".
  [[noreturn]] void ThrowFormatError(std::string_view value) const;
  // A parse result other than kOk as a ParamError; `valid` describes the accepted range.
  // Called on the error path only: building `valid` costs allocations.
  [[noreturn]] void ThrowParseError(ParseStatus status, std::string_view value,
                                    const std::string& valid) const;

  bool has_default_ = false;
  size_t index_ = 0;
  std::string key_;
  std::string type_;
  std::string description_;
  friend class ParamManager;
};

namespace detail {

// "true"/"false"/"1"/"0" in any case, surrounded by optional whitespace.
ParseStatus ParseBool(std::string_view text, bool* out);

// Parses `text` into any field type: numbers and bools strictly, strings as they are, any
// other type through its operator>> (only trailing whitespace may remain).
template <typename T>
ParseStatus ParseFieldValue(std::string_view text, T* out) {
  if constexpr (std::is_same_v<T, bool>) {
    return ParseBool(text, out);
  } else if constexpr (is_arithmetic<T>::value) {
    return ParseNumber(text, out);
  } else if constexpr (std::is_same_v<T, std::string>) {
    out->assign(text.data(), text.size());
    return ParseStatus::kOk;
  } else {
    std::istringstream is{std::string(text)};
    T value;
    is >> value;
    if (is.fail()) return ParseStatus::kInvalid;
    is >> std::ws;
    if (!is.eof()) return ParseStatus::kInvalid;
    *out = std::move(value);
    return ParseStatus::kOk;
  }
}

// The range of values a numeric type holds, for error messages: "[-2147483648, 2147483647]";
// for floating point also the smallest normal magnitude.
template <typename T>
std::string TypeRangeString() {
  if constexpr (is_arithmetic<T>::value) {
    std::string range = "[" + NumberToString(std::numeric_limits<T>::lowest()) + ", " +
                        NumberToString(std::numeric_limits<T>::max()) + "]";
    if constexpr (std::is_floating_point_v<T>) {
      // Underflow is a range error too (see strtonum.h), so say where it starts.
      range += " with nonzero magnitudes from " + NumberToString(std::numeric_limits<T>::min());
    }
    return range;
  } else {
    return "";
  }
}

// Prints a field value: floating point in its shortest exact form, bools as True/False.
template <typename T>
void PrintFieldValue(std::ostream& os, const T& value) {
  if constexpr (std::is_same_v<T, bool>) {
    os << (value ? "True" : "False");
  } else if constexpr (is_arithmetic<T>::value) {
    os << NumberToString(value);
  } else {
    os << value;
  }
}

// The names of an int field's enum values ("relu" -> 0) in both directions.
class EnumNames {
 public:
  // Adds a name; a repeated name or value is a ParamError that lists the existing ones.
  void Add(const std::string& field, const std::string& name, int value);
  bool empty() const { return by_name_.empty(); }
  // The value for `name` (surrounding whitespace ignored), or nullptr.
  const int* FindValue(std::string_view name) const;
  // The name for `value`, or nullptr.
  const std::string* FindName(int value) const;
  // {'relu', 'sigmoid'}
  void Print(std::ostream& os) const;
  // Throws "Invalid Input: '<value>' for <field>, valid values are: {...}".
  [[noreturn]] void ThrowInvalid(const std::string& field, std::string_view value) const;

 private:
  std::map<std::string, int, std::less<>> by_name_;
  std::map<int, std::string> by_value_;
};

}  // namespace detail

// The common part of every FieldEntry: where the field lives, its default, its docs.
template <typename TEntry, typename DType>
class FieldEntryBase : public FieldAccessEntry {
 public:
  using ValueType = DType;

  void Init(const std::string& key, void* head, DType& ref) {
    this->key_ = key;
    if (this->type_.empty()) this->type_ = dmlc::type_name<DType>();
    offset_ = reinterpret_cast<char*>(&ref) - static_cast<char*>(head);
  }

  void Set(void* head, const std::string& value) const override {
    const ParseStatus status = detail::ParseFieldValue(value, &this->Get(head));
    if (status != ParseStatus::kOk) {
      this->ThrowParseError(status, value, detail::TypeRangeString<DType>());
    }
  }

  void SetDefault(void* head) const override {
    if (!this->has_default_) {
      throw ParamError("Required parameter " + this->key_ + " of " + this->type_ +
                       " is not presented");
    }
    this->Get(head) = default_value_;
  }

  void MoveValue(void* from_head, void* to_head) const override {
    this->Get(to_head) = std::move(this->Get(from_head));
  }

  std::string GetStringValue(void* head) const override {
    std::ostringstream os;
    PrintValue(os, this->Get(head));
    return os.str();
  }

  ParamFieldInfo GetFieldInfo() const override {
    ParamFieldInfo info;
    info.name = this->key_;
    info.type = this->type_;
    std::ostringstream os;
    os << this->type_;
    AppendDefaultInfo(os);
    info.type_info_str = os.str();
    info.description = this->description_;
    return info;
  }

  TEntry& set_default(const DType& default_value) {
    default_value_ = default_value;
    this->has_default_ = true;
    return self();
  }

  TEntry& describe(const std::string& description) {
    this->description_ = description;
    return self();
  }

 protected:
  TEntry& self() { return *static_cast<TEntry*>(this); }

  DType& Get(void* head) const {
    return *reinterpret_cast<DType*>(static_cast<char*>(head) + offset_);
  }

  virtual void PrintValue(std::ostream& os, DType value) const {
    detail::PrintFieldValue(os, value);
  }

  void PrintDefaultValueString(std::ostream& os) const override {
    PrintValue(os, default_value_);
  }

  // ", optional, default=<value>" or ", required".
  void AppendDefaultInfo(std::ostream& os) const {
    if (this->has_default_) {
      os << ", optional, default=";
      PrintDefaultValueString(os);
    } else {
      os << ", required";
    }
  }

  ptrdiff_t offset_ = 0;
  DType default_value_{};
};

// Numbers with an optional range: set_range(begin, end), set_lower_bound(begin).
template <typename TEntry, typename DType>
class FieldEntryNumeric : public FieldEntryBase<TEntry, DType> {
 public:
  virtual TEntry& set_range(DType begin, DType end) {
    begin_ = begin;
    end_ = end;
    has_begin_ = true;
    has_end_ = true;
    return this->self();
  }

  virtual TEntry& set_lower_bound(DType begin) {
    begin_ = begin;
    has_begin_ = true;
    return this->self();
  }

  virtual TEntry& set_upper_bound(DType end) {
    end_ = end;
    has_end_ = true;
    return this->self();
  }

  void Check(void* head) const override {
    FieldEntryBase<TEntry, DType>::Check(head);
    const DType v = this->Get(head);
    // Written as negations so that NaN fails every bound.
    const bool below = has_begin_ && !(v >= begin_);
    const bool above = has_end_ && !(v <= end_);
    if (!below && !above) return;
    std::ostringstream os;
    os << "value ";
    this->PrintValue(os, v);
    os << " for Parameter " << this->key_;
    if (has_begin_ && has_end_) {
      os << " exceed bound [";
      this->PrintValue(os, begin_);
      os << ',';
      this->PrintValue(os, end_);
      os << ']';
    } else if (below) {
      os << " should be greater equal to ";
      this->PrintValue(os, begin_);
    } else {
      os << " should be smaller equal to ";
      this->PrintValue(os, end_);
    }
    if (!this->description_.empty()) os << '\n' << this->key_ << ": " << this->description_;
    throw ParamError(os.str());
  }

 protected:
  bool has_begin_ = false;
  bool has_end_ = false;
  DType begin_{};
  DType end_{};
};

// The entry for a field of type DType: numeric types get ranges, others the base behaviour.
// Specialize it for a new field type (as mshadow's TShape does).
template <typename DType>
class FieldEntry
    : public IfThenElseType<is_arithmetic<DType>::value,
                            FieldEntryNumeric<FieldEntry<DType>, DType>,
                            FieldEntryBase<FieldEntry<DType>, DType>>::Type {};

// int: a number with a range, or an enum (`add_enum("relu", 0)`) set and printed by name.
template <>
class FieldEntry<int> : public FieldEntryNumeric<FieldEntry<int>, int> {
 public:
  using Parent = FieldEntryNumeric<FieldEntry<int>, int>;

  void Set(void* head, const std::string& value) const override {
    if (enums_.empty()) return Parent::Set(head, value);
    const int* found = enums_.FindValue(value);
    if (found == nullptr) enums_.ThrowInvalid(key_, value);
    Get(head) = *found;
  }

  FieldEntry<int>& add_enum(const std::string& key, int value) {
    enums_.Add(key_, key, value);
    return self();
  }

  ParamFieldInfo GetFieldInfo() const override;

 protected:
  void PrintValue(std::ostream& os, int value) const override;
  void PrintDefaultValueString(std::ostream& os) const override;

 private:
  detail::EnumNames enums_;
};

// Strings are taken as they are, spaces included; defaults print in quotes.
template <>
class FieldEntry<std::string> : public FieldEntryBase<FieldEntry<std::string>, std::string> {
 protected:
  void PrintDefaultValueString(std::ostream& os) const override {
    os << '\'' << default_value_ << '\'';
  }
};

// bool: true/false/1/0 in any case; prints True/False.
template <>
class FieldEntry<bool> : public FieldEntryBase<FieldEntry<bool>, bool> {};

// optional<T>: "None" or a value of T; an optional<int> may be an enum too.
template <typename T>
class FieldEntry<optional<T>> : public FieldEntryBase<FieldEntry<optional<T>>, optional<T>> {
 public:
  using Parent = FieldEntryBase<FieldEntry<optional<T>>, optional<T>>;

  FieldEntry() { this->type_ = std::string(type_name<T>()) + " or None"; }

  void Set(void* head, const std::string& value) const override {
    optional<T>& field = this->Get(head);
    if (TrimSpace(value) == "None") {
      field.reset();
      return;
    }
    if constexpr (std::is_same_v<T, int>) {
      if (!enums_.empty()) {
        const int* found = enums_.FindValue(value);
        if (found == nullptr) enums_.ThrowInvalid(this->key_, value);
        field = *found;
        return;
      }
    }
    std::string_view text = TrimSpace(value);
    // dmlc-core takes Python 2's long spelling ("1L") for optional integers.
    if constexpr (is_integral<T>::value) {
      if (!text.empty() && text.back() == 'L') text.remove_suffix(1);
    }
    T parsed{};
    const ParseStatus status = detail::ParseFieldValue(text, &parsed);
    if (status != ParseStatus::kOk) {
      this->ThrowParseError(status, value, detail::TypeRangeString<T>() + " or None");
    }
    field = std::move(parsed);
  }

  FieldEntry& add_enum(const std::string& key, int value) {
    static_assert(std::is_same_v<T, int>, "add_enum is for int and optional<int> fields");
    enums_.Add(this->key_, key, value);
    return this->self();
  }

  ParamFieldInfo GetFieldInfo() const override {
    ParamFieldInfo info = Parent::GetFieldInfo();
    if (!enums_.empty()) {
      std::ostringstream os;
      enums_.Print(os);
      os << " or None";
      this->AppendDefaultInfo(os);
      info.type_info_str = os.str();
    }
    return info;
  }

 protected:
  void PrintValue(std::ostream& os, optional<T> value) const override {
    if (!value.has_value()) {
      os << "None";
      return;
    }
    if constexpr (std::is_same_v<T, int>) {
      if (!enums_.empty()) {
        const std::string* name = enums_.FindName(*value);
        CHECK(name != nullptr) << "value " << *value << " of " << this->key_
                               << " is not one of its enum values";
        os << *name;
        return;
      }
    }
    detail::PrintFieldValue(os, *value);
  }

  void PrintDefaultValueString(std::ostream& os) const override {
    os << '\'';
    PrintValue(os, this->default_value_);
    os << '\'';
  }

 private:
  detail::EnumNames enums_;
};

// The set of fields an Init call has assigned, without allocating for up to 64 fields.
class FieldSet {
 public:
  explicit FieldSet(size_t num_fields) {
    if (num_fields > 64) large_.resize(num_fields);
  }
  void Insert(size_t index) {
    if (large_.empty()) {
      small_ |= uint64_t{1} << index;
    } else {
      large_[index] = true;
    }
  }
  bool Contains(size_t index) const {
    return large_.empty() ? (small_ >> index) & 1 : static_cast<bool>(large_[index]);
  }

 private:
  uint64_t small_ = 0;
  std::vector<bool> large_;
};

// All fields of one parameter struct, by position and by name (and alias).
class ParamManager {
 public:
  ParamManager() = default;
  ParamManager(const ParamManager&) = delete;
  ParamManager& operator=(const ParamManager&) = delete;

  // Takes ownership of `e`; a key declared twice is a dmlc::Error.
  void AddEntry(const std::string& key, FieldAccessEntry* e);
  // Makes `alias` another name of `field`.
  void AddAlias(const std::string& field, const std::string& alias);
  void set_name(const std::string& name) { name_ = name; }
  const std::string& name() const { return name_; }

  // The entry for a key or alias, or nullptr.
  FieldAccessEntry* Find(std::string_view key) const {
    const auto it = entry_map_.find(key);
    return it == entry_map_.end() ? nullptr : it->second;
  }

  std::vector<ParamFieldInfo> GetFieldInfo() const;
  // One "name : type_info_str" line per field, its description indented below it.
  void PrintDocString(std::ostream& os) const;
  // Every field (aliases not repeated) as (name, value) text, in declaration order.
  std::vector<std::pair<std::string, std::string>> GetDict(void* head) const;

  // Writes every field's current value into `dict` (a map from string to string).
  template <typename Container>
  void UpdateDict(void* head, Container* dict) const {
    for (const auto& entry : entry_) (*dict)[entry->key_] = entry->GetStringValue(head);
  }

  // Moves the fields in `fields` (every field when null) from one struct to another.
  void MoveFields(void* from_head, void* to_head, const FieldSet* fields = nullptr) const {
    for (const auto& entry : entry_) {
      if (fields == nullptr || fields->Contains(entry->index_)) {
        entry->MoveValue(from_head, to_head);
      }
    }
  }

  size_t num_fields() const { return entry_.size(); }

  // Sets the fields named in [begin, end), checks them, and sets every other field to its
  // default. Keys naming no field go to `unknown_args` when it is given; otherwise `option`
  // decides whether they are an error.
  template <typename RandomAccessIterator>
  void RunInit(void* head, RandomAccessIterator begin, RandomAccessIterator end,
               std::vector<std::pair<std::string, std::string>>* unknown_args,
               ParamInitOption option) const {
    FieldSet selected(entry_.size());
    RunUpdate(head, begin, end, option, unknown_args, &selected);
    for (const auto& entry : entry_) {
      if (!selected.Contains(entry->index_)) entry->SetDefault(head);
    }
  }

  // Like RunInit, but fields not named keep their values.
  template <typename RandomAccessIterator>
  void RunUpdate(void* head, RandomAccessIterator begin, RandomAccessIterator end,
                 ParamInitOption option,
                 std::vector<std::pair<std::string, std::string>>* unknown_args,
                 FieldSet* selected_args) const {
    for (RandomAccessIterator it = begin; it != end; ++it) {
      if (FieldAccessEntry* e = Find(it->first)) {
        e->Set(head, it->second);
        e->Check(head);
        if (selected_args != nullptr) selected_args->Insert(e->index_);
      } else if (unknown_args != nullptr) {
        unknown_args->emplace_back(it->first, it->second);
      } else if (option != kAllowUnknown && !(option == kAllowHidden && IsHidden(it->first))) {
        ThrowUnknownArgument(it->first);
      }
    }
  }

 private:
  // `__name__`: keys a host passes along for itself.
  static bool IsHidden(std::string_view key) {
    return key.size() > 4 && key.substr(0, 2) == "__" && key.substr(key.size() - 2) == "__";
  }
  [[noreturn]] void ThrowUnknownArgument(std::string_view key) const;

  std::string name_;
  std::vector<std::unique_ptr<FieldAccessEntry>> entry_;
  std::map<std::string, FieldAccessEntry*, std::less<>> entry_map_;
};

// Builds the manager of PType once: runs PType's field declarations on a scratch instance.
template <typename PType>
struct ParamManagerSingleton {
  ParamManager manager;
  explicit ParamManagerSingleton(const std::string& param_name) {
    PType param;
    param.__DECLARE__(this);
    manager.set_name(param_name);
  }
};

}  // namespace parameter

// The base of every parameter struct: `struct P : public dmlc::Parameter<P> { ... }`.
template <typename PType>
struct Parameter {
 public:
  using KwargList = std::initializer_list<std::pair<std::string, std::string>>;

  // Sets the fields from key/value pairs (any container of pairs of strings) and every
  // other field to its default. Throws ParamError; on error *this is unchanged.
  template <typename Container>
  void Init(const Container& kwargs,
            parameter::ParamInitOption option = parameter::kAllowHidden) {
    Transact(/*all_fields=*/true, [&](PType* scratch, parameter::FieldSet*) {
      PType::__MANAGER__()->RunInit(scratch, kwargs.begin(), kwargs.end(), nullptr, option);
    });
  }
  void Init(KwargList kwargs, parameter::ParamInitOption option = parameter::kAllowHidden) {
    Init<KwargList>(kwargs, option);
  }

  // Like Init, but returns the pairs that name no field instead of rejecting them.
  template <typename Container>
  std::vector<std::pair<std::string, std::string>> InitAllowUnknown(const Container& kwargs) {
    std::vector<std::pair<std::string, std::string>> unknown;
    Transact(/*all_fields=*/true, [&](PType* scratch, parameter::FieldSet*) {
      PType::__MANAGER__()->RunInit(scratch, kwargs.begin(), kwargs.end(), &unknown,
                                    parameter::kAllowUnknown);
    });
    return unknown;
  }

  // Sets only the fields named; the others keep their values.
  template <typename Container>
  void Update(const Container& kwargs,
              parameter::ParamInitOption option = parameter::kAllowHidden) {
    Transact(/*all_fields=*/false, [&](PType* scratch, parameter::FieldSet* assigned) {
      PType::__MANAGER__()->RunUpdate(scratch, kwargs.begin(), kwargs.end(), option, nullptr,
                                      assigned);
    });
  }
  void Update(KwargList kwargs, parameter::ParamInitOption option = parameter::kAllowHidden) {
    Update<KwargList>(kwargs, option);
  }

  // Like Update, but returns the pairs that name no field instead of rejecting them.
  template <typename Container>
  std::vector<std::pair<std::string, std::string>> UpdateAllowUnknown(const Container& kwargs) {
    std::vector<std::pair<std::string, std::string>> unknown;
    Transact(/*all_fields=*/false, [&](PType* scratch, parameter::FieldSet* assigned) {
      PType::__MANAGER__()->RunUpdate(scratch, kwargs.begin(), kwargs.end(),
                                      parameter::kAllowUnknown, &unknown, assigned);
    });
    return unknown;
  }
  // Also says whether any field's value changed (a field set to the value it had did not).
  template <typename Container>
  std::vector<std::pair<std::string, std::string>> UpdateAllowUnknown(const Container& kwargs,
                                                                      bool* out_changed) {
    const auto before = PType::__MANAGER__()->GetDict(head());
    auto unknown = UpdateAllowUnknown(kwargs);
    if (out_changed != nullptr) *out_changed = PType::__MANAGER__()->GetDict(head()) != before;
    return unknown;
  }

  // Writes every field's current value, as text, into `dict` (a string-to-string map).
  template <typename Container>
  void UpdateDict(Container* dict) const {
    PType::__MANAGER__()->UpdateDict(head(), dict);
  }

  // Every field's current value as text.
  std::map<std::string, std::string> __DICT__() const {
    const auto fields = PType::__MANAGER__()->GetDict(head());
    return std::map<std::string, std::string>(fields.begin(), fields.end());
  }

  static std::vector<ParamFieldInfo> __FIELDS__() {
    return PType::__MANAGER__()->GetFieldInfo();
  }

  static std::string __DOC__() {
    std::ostringstream os;
    PType::__MANAGER__()->PrintDocString(os);
    return os.str();
  }

  // JSON: an object of field name to value text, as __DICT__ gives it.
  void Save(JSONWriter* writer) const { writer->Write(__DICT__()); }
  void Load(JSONReader* reader) {
    std::map<std::string, std::string> kwargs;
    reader->Read(&kwargs);
    Init(kwargs);
  }

 protected:
  // Adds a field; DMLC_DECLARE_FIELD calls it from __DECLARE__.
  template <typename DType>
  parameter::FieldEntry<DType>& DECLARE(parameter::ParamManagerSingleton<PType>* manager,
                                        const std::string& key, DType& ref) {
    auto* e = new parameter::FieldEntry<DType>();
    e->Init(key, this->head(), ref);
    manager->manager.AddEntry(key, e);
    return *e;
  }

 private:
  PType* head() const { return static_cast<PType*>(const_cast<Parameter<PType>*>(this)); }

  // Runs `apply` on a value-initialized scratch struct and moves the fields it set (all of
  // them for Init) into *this only if it succeeds, so a bad value never leaves a
  // half-updated struct. Only declared fields are touched, and never read uninitialized.
  template <typename Apply>
  void Transact(bool all_fields, Apply&& apply) {
    const parameter::ParamManager* manager = PType::__MANAGER__();
    PType scratch{};
    parameter::FieldSet assigned(manager->num_fields());
    apply(&scratch, &assigned);
    manager->MoveFields(&scratch, head(), all_fields ? nullptr : &assigned);
  }
};

// Reads environment variable `key` as a ValueType, parsed like a parameter field;
// `default_value` when it is unset or empty. A malformed value is a ParamError.
template <typename ValueType>
ValueType GetEnv(const char* key, ValueType default_value) {
  const char* text = std::getenv(key);
  if (text == nullptr || *text == '\0') return default_value;
  ValueType value = default_value;
  parameter::FieldEntry<ValueType> entry;
  entry.Init(key, &value, value);
  entry.Set(&value, text);
  return value;
}

// Sets environment variable `key` to `value` written as a parameter field prints it.
template <typename ValueType>
void SetEnv(const char* key, ValueType value) {
  parameter::FieldEntry<ValueType> entry;
  entry.Init(key, &value, value);
  setenv(key, entry.GetStringValue(&value).c_str(), 1);
}

}  // namespace dmlc

// Declares the fields of a parameter struct; follow it with a body of DMLC_DECLARE_FIELDs.
#define DMLC_DECLARE_PARAMETER(PType)                    \
  static ::dmlc::parameter::ParamManager* __MANAGER__(); \
  inline void __DECLARE__(::dmlc::parameter::ParamManagerSingleton<PType>* manager)

#define DMLC_DECLARE_FIELD(FieldName) this->DECLARE(manager, #FieldName, FieldName)

#define DMLC_DECLARE_ALIAS(FieldName, AliasName) \
  manager->manager.AddAlias(#FieldName, #AliasName)

// Defines the manager of PType; put it in exactly one .cc file.
#define DMLC_REGISTER_PARAMETER(PType)                                      \
  ::dmlc::parameter::ParamManager* PType::__MANAGER__() {                   \
    static ::dmlc::parameter::ParamManagerSingleton<PType> inst(#PType);    \
    return &inst.manager;                                                   \
  }                                                                         \
  static DMLC_ATTRIBUTE_UNUSED ::dmlc::parameter::ParamManager&             \
      __make__##PType##ParamManager__ = (*PType::__MANAGER__())

#endif  // DMLC_PARAMETER_H_
