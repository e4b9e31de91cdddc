#include "runtime/Io.h"
#include "runtime/Progress.h"
#include "runtime/common/Numeric.h"
#include "runtime/include/bendc/ffi.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/ConvertUTF.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dlfcn.h>
#include <string>
#include <unistd.h>
#include <vector>

namespace bendc::rt {

namespace {

// Tags of the λ-encoded types of Bend's builtins.
constexpr uint32_t IoDone = 0, IoCall = 1;
constexpr uint32_t ResultOk = 0, ResultErr = 1;
constexpr uint32_t IoErrType = 0, IoErrName = 1, IoErrInner = 2;
constexpr uint32_t ListNil = 0, ListCons = 1;
constexpr uint32_t MagicHigh = 0xD0CA11, MagicLow = 0xFF1FF1;

/// Whether `t` is the u24 number `value` (whatever marks it carries above its
/// 32 bits, see ThroughVarBit).
bool isNumber(Term t, uint32_t value) {
  return tagOf(t) == tag::Num && numOf(t) == num::makeU24(value);
}
/// The most fields a constructor the host reads may have.
constexpr unsigned MaxFields = 16;

/// A λ-encoded constructor taken out of the net: its tag and fields, each a
/// positive term the reader now owns.
struct Ctr {
  Term tag = 0;
  llvm::SmallVector<Term, 4> fields;
};

} // namespace

struct IoSession::Impl {
  IoConfig config;
  NetHost *net = nullptr;
  bool failed = false; // a reduction or an allocation failed: stop
  uint64_t callCount = 0;
  std::vector<FILE *> files = std::vector<FILE *>(MaxOpenFiles, nullptr);
  std::vector<void *> libraries = std::vector<void *>(MaxOpenLibraries, nullptr);

  explicit Impl(const IoConfig &config) : config(config) {}

  // --- reading values ----------------------------------------------------

  bool reduce() {
    if (!failed && !net->reduce())
      failed = true;
    return !failed;
  }

  /// A value looked at without taking it. References met on the way are
  /// expanded into copies (the net keeps the reference, as HVM2 does, so the
  /// result reads back the same); the caller drops `copies` when done.
  struct Peeked {
    Term value = 0;
    llvm::SmallVector<Term, 2> copies;
  };

  /// Follows variables to the substitution entries that hold their values. A
  /// free variable comes back as the VAR itself.
  Peeked peek(Term t) {
    Peeked p;
    while (!failed) {
      if (tagOf(t) == tag::Var) {
        Term there = net->load(payloadOf(t));
        if (!isPositive(there))
          break;
        t = there;
        continue;
      }
      if (tagOf(t) != tag::Ref || !expand(t))
        break;
      p.copies.push_back(t);
    }
    p.value = failed ? eraTerm() : t;
    return p;
  }

  void forget(Peeked &p) {
    for (Term c : p.copies)
      drop(c);
    p.copies.clear();
  }

  /// The value of a positive term the host owns: substitution entries on the
  /// way are consumed, references expanded.
  Term take(Term t) {
    while (!failed) {
      if (tagOf(t) == tag::Var) {
        Loc target = payloadOf(t);
        Term there = net->load(target);
        if (!isPositive(there))
          return t; // a free variable
        net->killSlot(target);
        t = there;
        continue;
      }
      if (tagOf(t) != tag::Ref)
        return t;
      expand(t);
    }
    return nulTerm();
  }

  /// Replaces the reference `t` by a reduced copy of its definition; false
  /// when the run failed.
  bool expand(Term &t) {
    if (!room(net->book().defs[refOf(t)].nodeCount))
      return false;
    t = net->expandRef(refOf(t));
    return reduce();
  }

  void drop(Term pos) { net->link(eraTerm(), pos); }

  /// The applications of a constructor `λt (t TAG f1 ... fn)` at lambda node
  /// `lam`, outermost first; empty when the lambda has another shape.
  llvm::SmallVector<Loc, 8> ctrApps(Loc lam) {
    llvm::SmallVector<Loc, 8> apps;
    Term t = net->load(slotOf(lam, 0));
    while (tagOf(t) == tag::App && apps.size() <= MaxFields) {
      apps.push_back(nodeOf(t));
      t = net->load(slotOf(nodeOf(t), 1));
    }
    // The chain ends in the lambda's body: the last application's result.
    if (apps.empty() || apps.size() > MaxFields + 1 || !isSub(t) ||
        net->load(slotOf(lam, 1)) != varTerm(slotOf(apps.back(), 1)))
      apps.clear();
    return apps;
  }

  /// Takes the constructor `pos` apart. False when `pos` is not one (it is
  /// then dropped) or when the run failed.
  bool readCtr(Term pos, Ctr &ctr) {
    Term t = take(pos);
    if (failed)
      return false;
    if (tagOf(t) != tag::Lam) {
      drop(t);
      return false;
    }
    Loc lam = nodeOf(t);
    llvm::SmallVector<Loc, 8> apps = ctrApps(lam);
    if (apps.empty()) {
      drop(t);
      return false;
    }
    ctr.tag = net->load(slotOf(apps[0], 0));
    ctr.fields.clear();
    for (size_t i = 1; i < apps.size(); ++i)
      ctr.fields.push_back(net->load(slotOf(apps[i], 0)));
    for (Loc a : apps)
      net->release(a);
    net->release(lam);
    ctr.tag = take(ctr.tag);
    return !failed;
  }

  void dropFields(Ctr &ctr) {
    drop(ctr.tag);
    for (Term f : ctr.fields)
      drop(f);
    ctr.fields.clear();
  }

  bool readNumber(Term pos, Numb &n) {
    Term t = take(pos);
    if (tagOf(t) == tag::Num) {
      n = numOf(t);
      return true;
    }
    if (!failed)
      drop(t);
    return false;
  }

  /// A λ-encoded list of numbers, each passed to `each`. False when the list
  /// has another shape (what was read stays read) or the run failed.
  template <class Each> bool readList(Term pos, Each each) {
    while (true) {
      Ctr ctr;
      if (!readCtr(pos, ctr))
        return false;
      Numb tagNum;
      if (tagOf(ctr.tag) != tag::Num) {
        dropFields(ctr);
        return false;
      }
      tagNum = numOf(ctr.tag);
      uint32_t tg = num::u24Of(tagNum);
      if (tg == ListNil && ctr.fields.empty())
        return true;
      if (tg != ListCons || ctr.fields.size() != 2) {
        dropFields(ctr);
        return false;
      }
      Numb head;
      if (!readNumber(ctr.fields[0], head)) {
        drop(ctr.fields[1]);
        return false;
      }
      each(head);
      pos = ctr.fields[1];
    }
  }

  bool readBytes(Term pos, std::string &out) {
    return readList(pos, [&](Numb n) { out += char(num::u24Of(n) & 0xFF); });
  }

  /// A Bend String (code points) as UTF-8.
  bool readString(Term pos, std::string &out) {
    return readList(pos, [&](Numb n) {
      char buf[UNI_MAX_UTF8_BYTES_PER_CODE_POINT];
      char *end = buf;
      if (llvm::ConvertCodePointToUTF8(num::u24Of(n), end))
        out.append(buf, end);
      else
        out += '?';
    });
  }

  /// A right-nested tuple `(a, (b, c))` of `n` elements, as HVM2 reads it.
  bool readTuple(Term pos, unsigned n, llvm::SmallVectorImpl<Term> &elems) {
    Term t = take(pos);
    while (!failed && tagOf(t) == tag::Tup && elems.size() + 1 < n) {
      Loc tup = nodeOf(t);
      elems.push_back(net->load(slotOf(tup, 0)));
      Term rest = net->load(slotOf(tup, 1));
      net->release(tup);
      t = take(rest);
    }
    elems.push_back(t);
    if (!failed && elems.size() == n)
      return true;
    for (Term e : elems)
      drop(e);
    elems.clear();
    return false;
  }

  // --- building values ---------------------------------------------------
  // Callers reserve the nodes first.

  Term makeCtr(uint32_t tagValue, llvm::ArrayRef<Term> fields) {
    Loc lam = net->alloc();
    Loc prev = lam;
    unsigned prevSlot = 0;
    Loc last = 0;
    for (size_t i = 0; i <= fields.size(); ++i) {
      Loc app = net->alloc();
      net->store(slotOf(app, 0), i == 0 ? numTerm(num::makeU24(tagValue)) : fields[i - 1]);
      net->store(slotOf(prev, prevSlot), nodeTerm(tag::App, app));
      prev = app;
      prevSlot = 1;
      last = app;
    }
    net->store(slotOf(last, 1), subTerm());
    net->store(slotOf(lam, 1), varTerm(slotOf(last, 1)));
    return nodeTerm(tag::Lam, lam);
  }
  static constexpr uint64_t ctrNodes(size_t fields) { return fields + 2; }

  Term makePair(Term a, Term b) {
    Loc n = net->alloc();
    net->store(slotOf(n, 0), a);
    net->store(slotOf(n, 1), b);
    return nodeTerm(tag::Tup, n);
  }

  /// Reserves `n` nodes; on failure the run stops (out of memory).
  bool room(uint64_t n) {
    if (!failed && !net->reserve(n))
      failed = true;
    return !failed;
  }

  Term ok(Term value) {
    if (!room(ctrNodes(1)))
      return nulTerm();
    return makeCtr(ResultOk, {value});
  }
  Term error(uint32_t kind, Term inner = 0) {
    if (!room(ctrNodes(1) + ctrNodes(1)))
      return nulTerm();
    Term e = kind == IoErrInner ? makeCtr(kind, {inner}) : makeCtr(kind, {});
    return makeCtr(ResultErr, {e});
  }
  Term typeError() { return error(IoErrType); }
  Term errnoError(int code) { return error(IoErrInner, numTerm(num::makeI24(code))); }
  Term messageError(llvm::StringRef text) { return error(IoErrInner, makeBytes(text)); }

  Term makeBytes(llvm::StringRef bytes) {
    if (!room(ctrNodes(0) + ctrNodes(2) * bytes.size()))
      return nulTerm();
    Term list = makeCtr(ListNil, {});
    for (size_t i = bytes.size(); i-- > 0;)
      list = makeCtr(ListCons, {numTerm(num::makeU24(uint8_t(bytes[i]))), list});
    return list;
  }

  // --- the functions -----------------------------------------------------

  FILE *file(Term pos) {
    Numb n;
    if (!readNumber(pos, n))
      return nullptr;
    uint32_t fd = num::u24Of(n);
    if (fd == 0)
      return config.in;
    if (fd == 1)
      return config.out;
    if (fd == 2)
      return config.err;
    return fd < files.size() ? files[fd] : nullptr;
  }

  bool isStd(FILE *f) const { return f == config.in || f == config.out || f == config.err; }

  /// Before bytes go to a terminal the progress line makes room, and what
  /// stdout holds goes first so the two streams keep program order.
  void beforeWriting(FILE *f) {
    if (f == config.err)
      fflush(config.out);
    if (config.progress && (f == config.out || f == config.err))
      config.progress->erase();
  }

  Term ioRead(Term argm) {
    llvm::SmallVector<Term, 2> a;
    if (!readTuple(argm, 2, a))
      return typeError();
    FILE *f = file(a[0]);
    Numb count = 0;
    if (!readNumber(a[1], count))
      return f ? typeError() : errnoError(EBADF);
    if (!f || f == config.out || f == config.err)
      return errnoError(EBADF);
    if (f == config.in) {
      // A prompt written before reading must be visible.
      if (config.progress)
        config.progress->erase();
      fflush(config.out);
    }
    std::string bytes(num::u24Of(count), '\0');
    size_t got = 0;
    while (got < bytes.size()) {
      size_t n = fread(bytes.data() + got, 1, bytes.size() - got, f);
      got += n;
      if (n != 0 || !ferror(f))
        break;
      int code = errno;
      if (code == EINTR && !(config.cancel && config.cancel->load())) {
        clearerr(f);
        continue;
      }
      clearerr(f);
      return errnoError(code ? code : EIO);
    }
    if (feof(f))
      clearerr(f); // a terminal may give more after an end of file
    bytes.resize(got);
    return ok(makeBytes(bytes));
  }

  Term ioWrite(Term argm) {
    llvm::SmallVector<Term, 2> a;
    if (!readTuple(argm, 2, a))
      return typeError();
    FILE *f = file(a[0]);
    std::string bytes;
    if (!readBytes(a[1], bytes) && failed)
      return nulTerm();
    if (!f || f == config.in)
      return errnoError(EBADF);
    beforeWriting(f);
    errno = 0;
    bool good = fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
    // Files the program opened are flushed at once so a full disk is seen
    // by this write; stderr is unbuffered; stdout is flushed by the stream.
    if (good && !isStd(f))
      good = fflush(f) == 0;
    if (f == config.err)
      fflush(f);
    if (!good) {
      int code = errno ? errno : EIO;
      clearerr(f);
      return errnoError(code);
    }
    return ok(nulTerm());
  }

  static bool validMode(llvm::StringRef mode) {
    if (mode.empty() || !llvm::StringRef("rwa").contains(mode[0]))
      return false;
    llvm::StringRef rest = mode.drop_front();
    // "r", "r+", "rb", "r+b", "rb+"
    return rest.empty() || rest == "+" || rest == "b" || rest == "+b" || rest == "b+";
  }

  Term ioOpen(Term argm) {
    llvm::SmallVector<Term, 2> a;
    if (!readTuple(argm, 2, a))
      return typeError();
    std::string name, mode;
    bool nameOk = readString(a[0], name);
    bool modeOk = readString(a[1], mode);
    if (failed)
      return nulTerm();
    if (!nameOk || !modeOk)
      return typeError();
    if (!validMode(mode) || name.find('\0') != std::string::npos)
      return errnoError(EINVAL);
    unsigned fd = 3;
    while (fd < files.size() && files[fd])
      ++fd;
    if (fd == files.size())
      return errnoError(EMFILE);
    FILE *f = fopen(name.c_str(), mode.c_str());
    if (!f)
      return errnoError(errno);
    files[fd] = f;
    return ok(numTerm(num::makeU24(fd)));
  }

  Term ioClose(Term argm) {
    Numb n;
    if (!readNumber(argm, n))
      return typeError();
    uint32_t fd = num::u24Of(n);
    if (fd <= 2) {
      // The standard streams stay open for the rest of the run (and for
      // bendc's own output); closing one flushes it.
      fflush(fd == 1 ? config.out : config.err);
      return ok(nulTerm());
    }
    if (fd >= files.size() || !files[fd])
      return errnoError(EBADF);
    FILE *f = files[fd];
    files[fd] = nullptr;
    if (fclose(f) != 0)
      return errnoError(errno);
    return ok(nulTerm());
  }

  Term ioFlush(Term argm) {
    FILE *f = file(argm);
    if (!f || f == config.in)
      return errnoError(EBADF);
    if (fflush(f) != 0) {
      int code = errno;
      clearerr(f);
      return errnoError(code);
    }
    return ok(nulTerm());
  }

  Term ioSeek(Term argm) {
    llvm::SmallVector<Term, 3> a;
    if (!readTuple(argm, 3, a))
      return typeError();
    FILE *f = file(a[0]);
    Numb offset = 0, whence = 0;
    bool numbers = readNumber(a[1], offset);
    numbers = readNumber(a[2], whence) && numbers;
    if (!numbers)
      return typeError();
    if (!f)
      return errnoError(EBADF);
    int w;
    switch (num::i24Of(whence)) {
    case 0: w = SEEK_SET; break;
    case 1: w = SEEK_CUR; break;
    case 2: w = SEEK_END; break;
    default: return typeError();
    }
    if (fseek(f, num::i24Of(offset), w) != 0)
      return errnoError(errno);
    return ok(nulTerm());
  }

  Term ioGetTime(Term argm) {
    drop(argm);
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t ns = uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
    if (!room(1))
      return nulTerm();
    Term pair = makePair(numTerm(num::makeU24(uint32_t(ns >> 24) & 0xFFFFFF)),
                         numTerm(num::makeU24(uint32_t(ns) & 0xFFFFFF)));
    return ok(pair);
  }

  Term ioSleep(Term argm) {
    llvm::SmallVector<Term, 2> a;
    if (!readTuple(argm, 2, a))
      return typeError();
    Numb hi = 0, lo = 0;
    bool numbers = readNumber(a[0], hi);
    numbers = readNumber(a[1], lo) && numbers;
    if (!numbers)
      return typeError();
    uint64_t ns = uint64_t(num::u24Of(hi)) << 24 | num::u24Of(lo);
    timespec left{time_t(ns / 1000000000u), long(ns % 1000000000u)};
    while (nanosleep(&left, &left) != 0 && errno == EINTR)
      if (config.cancel && config.cancel->load())
        break;
    return ok(nulTerm());
  }

  Term ioDlOpen(Term argm) {
    llvm::SmallVector<Term, 2> a;
    if (!readTuple(argm, 2, a))
      return typeError();
    std::string path;
    Numb lazy = 0;
    bool pathOk = readString(a[0], path);
    bool lazyOk = readNumber(a[1], lazy);
    if (failed)
      return nulTerm();
    if (!pathOk || !lazyOk)
      return typeError();
    unsigned handle = 0;
    while (handle < libraries.size() && libraries[handle])
      ++handle;
    if (handle == libraries.size()) {
      std::string why = "too many open libraries (at most ";
      why += std::to_string(MaxOpenLibraries);
      why += ')';
      return messageError(why);
    }
    void *lib = dlopen(path.c_str(), num::u24Of(lazy) ? RTLD_LAZY : RTLD_NOW);
    if (!lib) {
      const char *why = dlerror();
      return messageError(why ? why : "cannot open the library");
    }
    libraries[handle] = lib;
    return ok(numTerm(num::makeU24(handle)));
  }

  void *library(Term pos) {
    Numb n;
    if (!readNumber(pos, n))
      return nullptr;
    uint32_t h = num::u24Of(n);
    return h < libraries.size() ? libraries[h] : nullptr;
  }

  Term ioDlCall(Term argm);

  Term ioDlClose(Term argm) {
    Numb n;
    if (!readNumber(argm, n))
      return typeError();
    uint32_t h = num::u24Of(n);
    if (h >= libraries.size() || !libraries[h])
      return typeError();
    void *lib = libraries[h];
    libraries[h] = nullptr;
    if (dlclose(lib) != 0) {
      const char *why = dlerror();
      return messageError(why ? why : "cannot close the library");
    }
    return ok(nulTerm());
  }

  Term call(llvm::StringRef name, Term argm) {
    using Fn = Term (Impl::*)(Term);
    static const struct {
      const char *name;
      Fn fn;
    } table[] = {
        {"READ", &Impl::ioRead},         {"WRITE", &Impl::ioWrite},
        {"OPEN", &Impl::ioOpen},         {"CLOSE", &Impl::ioClose},
        {"FLUSH", &Impl::ioFlush},       {"SEEK", &Impl::ioSeek},
        {"GET_TIME", &Impl::ioGetTime},  {"SLEEP", &Impl::ioSleep},
        {"DL_OPEN", &Impl::ioDlOpen},    {"DL_CALL", &Impl::ioDlCall},
        {"DL_CLOSE", &Impl::ioDlClose},
    };
    for (const auto &entry : table)
      if (name == entry.name)
        return (this->*entry.fn)(argm);
    drop(argm);
    return error(IoErrName);
  }

  // --- the loop ------------------------------------------------------------

  /// A result as HVM2 looks at it after each reduction, to see whether it is
  /// an IO call: the root; if that is a constructor node, the node in its
  /// first port; the tag in that node's first port; and, along the chain of
  /// nodes in second ports, the value in each one's first port. A reference
  /// met at any of these places is expanded and reduced, counted as a call,
  /// as HVM2 does; the copies are not written back, so the result reads back
  /// as it was, and are never erased (HVM2 leaves them as garbage).
  struct Inspected {
    Peeked root;
    bool hasTag = false;
    Term tag = 0; // a number
    Loc tagSlot = 0;
    llvm::SmallVector<Loc, 4> argSlots;
    llvm::SmallVector<Term, 4> args;
  };

  static bool isCon(Term t) { return isNode(t) && kindOf(tagOf(t)) == Kind::Con; }

  /// What port `i` of node `n` holds: a positive port's value found as
  /// `peek` finds it; a negative port as it is.
  Term portValue(Term n, unsigned i) {
    Term t = net->load(slotOf(nodeOf(n), i));
    return auxPositive(tagOf(n), i) ? peek(t).value : t;
  }

  Inspected inspect(Loc root) {
    Inspected in;
    in.root = peek(net->load(root));
    if (failed || !isCon(in.root.value))
      return in;
    Term app = portValue(in.root.value, 0);
    if (failed || !isCon(app))
      return in;
    Term tg = portValue(app, 0);
    if (failed || tagOf(tg) != tag::Num)
      return in;
    in.hasTag = true;
    in.tag = tg;
    in.tagSlot = slotOf(nodeOf(app), 0);
    while (in.args.size() < MaxFields) {
      app = portValue(app, 1);
      if (failed || !isCon(app))
        break;
      in.argSlots.push_back(slotOf(nodeOf(app), 0));
      in.args.push_back(portValue(app, 0));
    }
    return in;
  }

  /// Whether an inspected result is `IO/Call(magic, name, argument, cont)`.
  bool isCall(const Inspected &in) {
    if (failed || !in.hasTag || num::u24Of(numOf(in.tag)) != IoCall || in.args.size() != 4 ||
        !isCon(in.args[0]))
      return false;
    Term magic = in.args[0];
    auto number = [&](unsigned i) {
      Term t = net->load(slotOf(nodeOf(magic), i));
      while (tagOf(t) == tag::Var && isPositive(net->load(payloadOf(t))))
        t = net->load(payloadOf(t));
      return t;
    };
    return isNumber(number(0), MagicHigh) && isNumber(number(1), MagicLow);
  }

  /// Puts `value`, found at the positive slot `slot` by `inspect`, in that
  /// slot, consuming the substitution entries on the way there: a call that
  /// is taken reads what `inspect` expanded instead of expanding it again.
  void settle(Loc slot, Term value) {
    Term t = net->load(slot);
    while (tagOf(t) == tag::Var) {
      Loc target = payloadOf(t);
      Term there = net->load(target);
      if (!isPositive(there))
        break;
      net->killSlot(target);
      t = there;
    }
    net->store(slot, value);
  }

  bool run(NetHost &host, Loc root) {
    net = &host;
    failed = false;
    while (!failed) {
      Inspected in = inspect(root);
      if (!isCall(in))
        break; // the result; copies of references stay unused
      settle(in.tagSlot, in.tag);
      for (size_t k = 0; k < in.args.size(); ++k)
        settle(in.argSlots[k], in.args[k]);
      // Take the call: from the root, or from the copy a reference there became.
      Term value = net->load(root);
      net->store(root, subTerm());
      Peeked &top = in.root;
      if (!top.copies.empty()) {
        drop(value);
        value = top.copies.pop_back_val();
        forget(top);
      }
      Ctr io;
      if (!readCtr(value, io) || io.fields.size() != 4)
        break; // cannot happen after isCall, unless the run failed
      ++callCount;
      drop(io.fields[0]);
      std::string name;
      if (!readString(io.fields[1], name) && failed)
        break;
      Term answer = call(name, io.fields[2]);
      if (failed || !room(1))
        break;
      // The continuation applied to the answer; its result goes to the root.
      Loc app = net->alloc();
      net->store(slotOf(app, 0), answer);
      net->store(slotOf(app, 1), subTerm());
      net->store(root, varTerm(slotOf(app, 1)));
      net->link(nodeTerm(tag::App, app), io.fields[3]);
      reduce();
    }
    return !failed;
  }

  void flushOutput() {
    for (FILE *f : files)
      if (f)
        fflush(f);
    fflush(config.out);
    fflush(config.err);
  }
};

// --- foreign functions -------------------------------------------------------

namespace {

IoSession::Impl &implOf(void *host) { return *static_cast<IoSession::Impl *>(host); }

int ffiReadNumber(void *host, bendc_value v, uint32_t *value) {
  Numb n;
  if (!implOf(host).readNumber(v, n))
    return 0;
  *value = n >> 5;
  return 1;
}

int ffiReadBytes(void *host, bendc_value v, char **bytes, size_t *length) {
  std::string text;
  if (!implOf(host).readBytes(v, text))
    return 0;
  char *buf = static_cast<char *>(malloc(text.size() + 1));
  if (!buf)
    return 0;
  memcpy(buf, text.data(), text.size());
  buf[text.size()] = '\0';
  *bytes = buf;
  *length = text.size();
  return 1;
}

int ffiReadPair(void *host, bendc_value v, bendc_value *first, bendc_value *second) {
  llvm::SmallVector<Term, 2> elems;
  if (!implOf(host).readTuple(v, 2, elems))
    return 0;
  *first = elems[0];
  *second = elems[1];
  return 1;
}

void ffiDrop(void *host, bendc_value v) { implOf(host).drop(v); }
bendc_value ffiU24(void *, uint32_t v) { return numTerm(num::makeU24(v & 0xFFFFFF)); }
bendc_value ffiI24(void *, int32_t v) { return numTerm(num::makeI24(v)); }
bendc_value ffiF24(void *, float v) { return numTerm(num::makeF24(v)); }
bendc_value ffiBytes(void *host, const char *bytes, size_t length) {
  return implOf(host).makeBytes(llvm::StringRef(bytes, length));
}
bendc_value ffiPair(void *host, bendc_value a, bendc_value b) {
  IoSession::Impl &io = implOf(host);
  if (!io.room(1)) {
    io.drop(a);
    io.drop(b);
    return nulTerm();
  }
  return io.makePair(a, b);
}
bendc_value ffiUnit(void *) { return nulTerm(); }

} // namespace

Term IoSession::Impl::ioDlCall(Term argm) {
  llvm::SmallVector<Term, 3> a;
  if (!readTuple(argm, 3, a))
    return typeError();
  void *lib = library(a[0]);
  std::string symbol;
  bool symbolOk = readString(a[1], symbol);
  if (failed)
    return nulTerm();
  if (!lib || !symbolOk) {
    drop(a[2]);
    return lib ? typeError() : messageError("invalid library handle");
  }
  dlerror();
  void *fn = dlsym(lib, symbol.c_str());
  if (const char *why = dlerror()) {
    drop(a[2]);
    return messageError(why);
  }
  if (!fn) {
    drop(a[2]);
    std::string why = "symbol '";
    why += symbol;
    why += "' is null";
    return messageError(why);
  }
  bendc_ffi ffi{BENDC_FFI_VERSION, this, ffiReadNumber, ffiReadBytes, ffiReadPair, ffiDrop,
                ffiU24,            ffiI24, ffiF24,       ffiBytes,     ffiPair,     ffiUnit};
  fflush(config.out); // what the program printed comes before what the library prints
  Term result = reinterpret_cast<bendc_ffi_function>(fn)(&ffi, a[2]);
  return ok(result);
}

namespace {

/// A term and the memory it lives in: the net, or the template of a
/// definition (whose node and variable payloads are local).
struct ReadOnly {
  SlotReader slots;
  const Book &book;

  struct At {
    Term term;
    int64_t def = -1;
  };

  Term load(int64_t def, Loc slot) const {
    return def < 0 ? slots[slot] : book.slots[book.defs[size_t(def)].firstSlot + slot];
  }

  /// Follows variables and redex-free references; stops at anything else.
  At resolve(At a) const {
    for (unsigned guard = 0; guard < 1u << 20; ++guard) {
      if (tagOf(a.term) == tag::Var) {
        Term there = load(a.def, payloadOf(a.term));
        if (!isPositive(there))
          return a;
        a.term = there;
        continue;
      }
      if (tagOf(a.term) == tag::Ref && refOf(a.term) < book.defs.size() &&
          book.defs[refOf(a.term)].redexCount == 0) {
        a = {book.defs[refOf(a.term)].root, int64_t(refOf(a.term))};
        continue;
      }
      return a;
    }
    return a;
  }

  bool isCall(Loc root) const {
    At top = resolve({slots[root], -1});
    if (tagOf(top.term) != tag::Lam)
      return false;
    Loc lam = nodeOf(top.term);
    llvm::SmallVector<Loc, 8> apps;
    Term t = load(top.def, slotOf(lam, 0));
    while (tagOf(t) == tag::App && apps.size() < 5) {
      apps.push_back(nodeOf(t));
      t = load(top.def, slotOf(nodeOf(t), 1));
    }
    if (apps.size() != 5 || !isSub(t) ||
        load(top.def, slotOf(lam, 1)) != varTerm(slotOf(apps.back(), 1)))
      return false;
    At tg = resolve({load(top.def, slotOf(apps[0], 0)), top.def});
    if (tagOf(tg.term) != tag::Num || num::u24Of(numOf(tg.term)) != IoCall)
      return false;
    At magic = resolve({load(top.def, slotOf(apps[1], 0)), top.def});
    if (tagOf(magic.term) != tag::Tup)
      return false;
    At high = resolve({load(magic.def, slotOf(nodeOf(magic.term), 0)), magic.def});
    At low = resolve({load(magic.def, slotOf(nodeOf(magic.term), 1)), magic.def});
    return isNumber(high.term, MagicHigh) && isNumber(low.term, MagicLow);
  }
};

} // namespace

bool isIoCall(SlotReader slots, const Book &book, Loc rootSlot) {
  return ReadOnly{slots, book}.isCall(rootSlot);
}

IoSession::IoSession(const IoConfig &config) : impl(std::make_unique<Impl>(config)) {
  // Line by line, as HVM2 writes: a long run shows its output as it goes,
  // also through a pipe.
  if (config.out == stdout)
    setvbuf(stdout, nullptr, _IOLBF, BUFSIZ);
}

IoSession::~IoSession() {
  impl->flushOutput();
  for (FILE *&f : impl->files)
    if (f) {
      fclose(f);
      f = nullptr;
    }
  for (void *&lib : impl->libraries)
    if (lib) {
      dlclose(lib);
      lib = nullptr;
    }
}

bool IoSession::run(NetHost &net, Loc rootSlot) { return impl->run(net, rootSlot); }
void IoSession::flushOutput() { impl->flushOutput(); }
uint64_t IoSession::calls() const { return impl->callCount; }

} // namespace bendc::rt
