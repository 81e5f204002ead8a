// The C interface of ale_shim.h over ALE's C++ ALEInterface.  What ALE
// throws (std::exception, or the const char * of its serializer) becomes a
// return code and a sentence; nothing escapes into C.
#include "ale_shim.h"

#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <ale/ale_interface.hpp>
#include <ale/emucore/MD5.hxx>
#include <ale/games/Roms.hpp>
#include <ale/version.hpp>

struct ale_shim {
    ale::ALEInterface ale;
    ale::ActionVect minimal, legal;
    std::string rom;      // for ale_shim_reseed, which loads it again
    int mode, difficulty; // -1: the game's default
    std::string saved;    // ale_shim_state_save's bytes until ale_shim_state_take
};

namespace
{

// Runs f; on a throw writes what was thrown into err after `what` and
// returns false.
template <typename F> bool guarded(const char *what, char *err, size_t errlen, F &&f)
{
    try {
        f();
        return true;
    } catch (const std::exception &e) {
        std::snprintf(err, errlen, "%s: %s", what, e.what());
    } catch (const char *s) {
        std::snprintf(err, errlen, "%s: %s", what, s);
    } catch (...) {
        std::snprintf(err, errlen, "%s: an unknown ALE error", what);
    }
    return false;
}

// ALE prints its banner and warnings to stderr unless told not to.
struct quiet {
    quiet()
    {
        ale::Logger::setMode(ale::Logger::Error);
    }
} const quiet_logger;

} // namespace

extern "C" const char *ale_shim_version(void)
{
    return ALE_VERSION;
}

// ALE's isSupportedROM, less its leak: the settings object that
// buildRomRLWrapper returns is deleted here.
extern "C" int ale_shim_identify(const char *rom, char *name, size_t cap, char *err, size_t errlen)
{
    std::string md5, game;
    bool known = false;
    if (!guarded("cannot read the ROM", err, errlen, [&] {
            std::ifstream f(rom, std::ios::binary);
            if (!f.good()) throw std::runtime_error("cannot open it");
            std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
            md5 = ale::stella::MD5(bytes.data(), (uint32_t)bytes.size());
            std::unique_ptr<ale::RomSettings> w(ale::buildRomRLWrapper(rom, md5));
            known = w && w->md5() == md5;
            if (known) game = w->rom();
        }))
        return -1;
    if (!known) {
        std::snprintf(err, errlen, "'%s' is not a ROM that ALE %s supports (its MD5 matches none of its games)", rom,
                      ALE_VERSION);
        return -1;
    }
    std::snprintf(name, cap, "%s", game.c_str());
    return 0;
}

extern "C" ale_shim *ale_shim_open(const ale_shim_opts *o, char *err, size_t errlen)
{
    std::unique_ptr<ale_shim> a;
    bool ok = guarded("ALE could not load the ROM", err, errlen, [&] {
        a.reset(new ale_shim());
        a->rom = o->rom, a->mode = o->mode, a->difficulty = o->difficulty;
        a->ale.setInt("random_seed", o->seed);
        a->ale.setFloat("repeat_action_probability", o->sticky);
        a->ale.setInt("max_num_frames_per_episode", o->max_frames);
        a->ale.setBool("sound_obs", false);
        a->ale.loadROM(o->rom);
    });
    if (!ok) return nullptr;
    // a mode or difficulty the game lacks: said as such, with the ones it has
    const char *what[2] = {"mode", "difficulty"};
    int want[2] = {o->mode, o->difficulty};
    for (int k = 0; k < 2; k++) {
        if (want[k] < 0) continue;
        std::vector<unsigned> have;
        if (k == 0)
            for (auto m : a->ale.getAvailableModes()) have.push_back((unsigned)m);
        else
            for (auto d : a->ale.getAvailableDifficulties()) have.push_back((unsigned)d);
        bool found = false;
        std::string list;
        for (unsigned h : have) { // snprintf: std::to_string's digit table is a unique symbol the .so would export
            char num[16];
            std::snprintf(num, sizeof num, "%s%u", list.empty() ? "" : ", ", h);
            found = found || h == (unsigned)want[k];
            list += num;
        }
        if (!found) {
            std::snprintf(err, errlen, "env.%s %d is not one of this game's (%s)", what[k], want[k], list.c_str());
            return nullptr;
        }
    }
    ok = guarded("ALE could not set the game's mode", err, errlen, [&] {
        if (o->mode >= 0) a->ale.setMode((ale::game_mode_t)o->mode);
        if (o->difficulty >= 0) a->ale.setDifficulty((ale::difficulty_t)o->difficulty);
        a->minimal = a->ale.getMinimalActionSet();
        a->legal = a->ale.getLegalActionSet();
    });
    return ok ? a.release() : nullptr;
}

extern "C" void ale_shim_close(ale_shim *a)
{
    delete a;
}

extern "C" int ale_shim_actions(ale_shim *a, int full, int *ids, int cap)
{
    const ale::ActionVect &v = full ? a->legal : a->minimal;
    int n = (int)v.size();
    for (int i = 0; i < n && i < cap; i++) ids[i] = (int)v[i];
    return n;
}

extern "C" int ale_shim_act(ale_shim *a, int id)
{
    return a->ale.act((ale::Action)id, 1.0f);
}

extern "C" int ale_shim_game_over(const ale_shim *a)
{
    return a->ale.game_over(false);
}

extern "C" int ale_shim_truncated(const ale_shim *a)
{
    return a->ale.game_truncated();
}

extern "C" int ale_shim_lives(ale_shim *a)
{
    return a->ale.lives();
}

extern "C" int ale_shim_frame(const ale_shim *a)
{
    return a->ale.getFrameNumber();
}

extern "C" int ale_shim_episode_frame(const ale_shim *a)
{
    return a->ale.getEpisodeFrameNumber();
}

extern "C" void ale_shim_reset(ale_shim *a)
{
    a->ale.reset_game();
}

extern "C" int ale_shim_reseed(ale_shim *a, int32_t seed, char *err, size_t errlen)
{
    return guarded("ALE could not load the ROM again", err, errlen,
                   [&] {
                       a->ale.setInt("random_seed", seed);
                       a->ale.loadROM(a->rom);
                       if (a->mode >= 0) a->ale.setMode((ale::game_mode_t)a->mode);
                       if (a->difficulty >= 0) a->ale.setDifficulty((ale::difficulty_t)a->difficulty);
                       a->ale.reset_game();
                   })
        ? 0
        : -1;
}

extern "C" void ale_shim_gray(ale_shim *a, uint8_t *out)
{
    a->ale.theOSystem->colourPalette().applyPaletteGrayscale(out, a->ale.getScreen().getArray(),
                                                             (size_t)ALE_SHIM_H * ALE_SHIM_W);
}

extern "C" void ale_shim_rgb(ale_shim *a, uint8_t *out)
{
    a->ale.theOSystem->colourPalette().applyPaletteRGB(out, a->ale.getScreen().getArray(),
                                                       (size_t)ALE_SHIM_H * ALE_SHIM_W);
}

extern "C" size_t ale_shim_state_save(ale_shim *a, char *err, size_t errlen)
{
    if (!guarded("ALE could not serialize the emulator state", err, errlen,
                 [&] { a->saved = a->ale.cloneState(true).serialize(); })) {
        a->saved.clear();
        return 0;
    }
    return a->saved.size();
}

extern "C" void ale_shim_state_take(ale_shim *a, uint8_t *buf)
{
    if (buf) std::memcpy(buf, a->saved.data(), a->saved.size());
    std::string().swap(a->saved);
}

extern "C" int ale_shim_restore(ale_shim *a, const uint8_t *buf, size_t len, char *err, size_t errlen)
{
    return guarded("ALE refused the saved emulator state", err, errlen,
                   [&] {
                       ale::ALEState st(std::string((const char *)buf, len));
                       a->ale.restoreState(st);
                   })
        ? 0
        : -1;
}
