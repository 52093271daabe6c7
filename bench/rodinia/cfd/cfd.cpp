// Rodinia's cfd (euler3d): loom's port (cfd.loom) against Rodinia's OpenMP version
// (euler3d_cpu.cpp) on the CPU or its CUDA version (euler3d.cu) on the GPU, on the same mesh.
//
// Rodinia reads its meshes (fvcorr.domn.097K and others) from rodinia_data, which is not
// vendored. The driver makes one instead, in the format euler3d reads, from a seed: a box of
// hexahedral cells of irregular widths, each cut into 6 tetrahedra (Kuhn's subdivision, which
// matches across neighbouring cells), its grid points moved by a random fraction of the widths
// around them; the cells of a thin slab inside the box are left out, a "wing" whose faces are wall
// boundaries, and the faces on the box are far-field boundaries. Every face's normal is computed
// from the moved points, so the tetrahedra close exactly and a face's normal, seen from its two
// elements, is negated bit for bit (the scheme conserves mass, momentum and energy).
#include "Harness.h"
#include "cfd_source.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>

namespace {

constexpr int nvar = 5, nnb = 4, ndim = 3;
// Rodinia's `#define iterations 2000` (both versions): each is a step factor and 3 Runge-Kutta
// stages. It is no option of the programs, so the driver runs the same count.
constexpr int iterations = 2000;

// The mesh as euler3d's reader leaves it: per element its "area" (the tetrahedron's volume; see
// below), and per face j its neighbour (an element; -1: a wing boundary; -2: the far field) and
// its normal, pointing into the element (the reader negates the file's outward normals), each in
// Rodinia's layout: neighbours[j * n + i], normals[(d * 4 + j) * n + i].
struct Mesh {
  int64_t n = 0;
  std::vector<float> areas, normals;
  std::vector<int32_t> neighbours;
  int far_field_faces = 0, wing_faces = 0;
};

// The box: nx x ny x nz cells, the wing the cells [x0, x1) x [y0, y1) x [z0, z1).
struct Box {
  int nx, ny, nz, x0, x1, y0, y1, z0, z1;
};

using Point = std::array<double, 3>;
Point minus(const Point &a, const Point &b) {
  return {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
}
Point cross(const Point &a, const Point &b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
double dot(const Point &a, const Point &b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

// Makes the mesh and writes it to `file` in euler3d's format: the number of elements, then per
// element its area and, per face, the neighbour in Fortran numbering (from 1; 0: a wing
// boundary; negative: the far field) and the outward normal.
Mesh make_mesh(const Box &box, uint64_t seed, const std::filesystem::path &file) {
  // Cell widths of 0.7 h to 1.3 h along each axis. Rodinia's step factor is
  // 0.5 / (sqrt(area) * (|v| + c)), in which the area stands for the volume a face's flux is
  // divided by; with the volume itself the scheme's Courant number grows as sqrt(h), and it is
  // stable for h below about 0.005 here (NaN within 2000 iterations above). h = 0.002 keeps it
  // well inside (the flow stays finite and positive to 8000 iterations at the small size).
  const double h = 0.002, jitter = 0.1;
  rodinia::Random random(seed);
  auto edges = [&](int cells) {
    std::vector<double> at(cells + 1, 0.0);
    for (int c = 0; c < cells; ++c)
      at[c + 1] = at[c] + h * (0.7 + 0.6 * random.uniform());
    return at;
  };
  const std::vector<double> ex = edges(box.nx), ey = edges(box.ny), ez = edges(box.nz);
  const int px = box.nx + 1, py = box.ny + 1, pz = box.nz + 1;
  auto point_id = [&](int i, int j, int k) { return i + int64_t(px) * (j + int64_t(py) * k); };
  // Each grid point moves along each axis by up to `jitter` times the narrower cell beside it.
  std::vector<Point> points(size_t(px) * py * pz);
  auto moved = [&](const std::vector<double> &at, int a, int cells) {
    double w = std::min(a > 0 ? at[a] - at[a - 1] : at[a + 1] - at[a],
                        a < cells ? at[a + 1] - at[a] : at[a] - at[a - 1]);
    return at[a] + (2 * random.uniform() - 1) * jitter * w;
  };
  for (int k = 0; k < pz; ++k)
    for (int j = 0; j < py; ++j)
      for (int i = 0; i < px; ++i)
        points[point_id(i, j, k)] = {moved(ex, i, box.nx), moved(ey, j, box.ny),
                                     moved(ez, k, box.nz)};

  // Kuhn's 6 tetrahedra of a cell: the paths from its corner (i, j, k) to (i+1, j+1, k+1) along
  // the three axes in each order. Elements are numbered cell by cell, x fastest.
  const int orders[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  auto wing = [&](int i, int j, int k) {
    return i >= box.x0 && i < box.x1 && j >= box.y0 && j < box.y1 && k >= box.z0 && k < box.z1;
  };
  std::vector<std::array<int64_t, 4>> tets;
  std::vector<std::array<int, 3>> corner; // each element's cell, to check its orientation
  for (int k = 0; k < box.nz; ++k)
    for (int j = 0; j < box.ny; ++j)
      for (int i = 0; i < box.nx; ++i) {
        if (wing(i, j, k))
          continue;
        for (const auto &order : orders) {
          int c[3] = {i, j, k};
          std::array<int64_t, 4> t;
          t[0] = point_id(c[0], c[1], c[2]);
          for (int s = 0; s < 3; ++s) {
            ++c[order[s]];
            t[s + 1] = point_id(c[0], c[1], c[2]);
          }
          tets.push_back(t);
        }
      }

  Mesh mesh;
  const int64_t n = mesh.n = int64_t(tets.size());
  std::vector<float> area(n), outward(size_t(n) * nnb * ndim); // file order: [i][j][d]
  std::vector<int64_t> link(size_t(n) * nnb, 0);               // file's numbering; 0 unset
  std::map<std::array<int64_t, 3>, int64_t> open; // a face seen once: its element * 4 + face
  auto grid = [&](int64_t p) {
    return Point{double(p % px), double(p / px % py), double(p / px / py)};
  };
  for (int64_t e = 0; e < n; ++e) {
    const auto &t = tets[e];
    double six_volume =
        dot(cross(minus(points[t[1]], points[t[0]]), minus(points[t[2]], points[t[0]])),
            minus(points[t[3]], points[t[0]]));
    double unmoved = dot(cross(minus(grid(t[1]), grid(t[0])), minus(grid(t[2]), grid(t[0]))),
                         minus(grid(t[3]), grid(t[0])));
    if (!(six_volume * unmoved > 0))
      throw std::runtime_error("the mesh generator turned a tetrahedron inside out");
    area[e] = float(std::fabs(six_volume) / 6);
    for (int f = 0; f < nnb; ++f) {
      // The face opposite vertex f, its normal half the cross product, turned away from f.
      std::array<int64_t, 3> face;
      for (int q = 0, m = 0; q < 4; ++q)
        if (q != f)
          face[m++] = t[q];
      Point normal =
          cross(minus(points[face[1]], points[face[0]]), minus(points[face[2]], points[face[0]]));
      double sign = dot(normal, minus(points[face[0]], points[t[f]])) > 0 ? 0.5 : -0.5;
      float *out = &outward[(size_t(e) * nnb + f) * ndim];
      std::sort(face.begin(), face.end());
      auto other = open.find(face);
      if (other == open.end()) {
        for (int d = 0; d < ndim; ++d)
          out[d] = float(sign * normal[d]);
        open.emplace(face, e * nnb + f);
        continue;
      }
      const int64_t o = other->second / nnb, g = other->second % nnb;
      for (int d = 0; d < ndim; ++d)
        out[d] = -outward[(size_t(o) * nnb + g) * ndim + d];
      link[e * nnb + f] = o + 1;
      link[o * nnb + g] = e + 1;
      open.erase(other);
    }
  }
  // The faces seen once are boundaries: on the box, the far field (-1 in the file); else the
  // wing's (0).
  const int extent[3] = {box.nx, box.ny, box.nz};
  for (const auto &[face, slot] : open) {
    bool on_box = false;
    for (int a = 0; a < 3; ++a)
      for (int side : {0, extent[a]})
        on_box = on_box || std::all_of(face.begin(), face.end(),
                                       [&](int64_t p) { return grid(p)[a] == side; });
    link[slot] = on_box ? -1 : 0;
    ++(on_box ? mesh.far_field_faces : mesh.wing_faces);
  }

  FILE *out = std::fopen(file.c_str(), "w");
  if (!out)
    throw std::runtime_error("cannot write " + file.string());
  std::fprintf(out, "%lld\n", (long long)n);
  for (int64_t e = 0; e < n; ++e) {
    std::fprintf(out, "%.9g", area[e]);
    for (int f = 0; f < nnb; ++f) {
      const float *v = &outward[(size_t(e) * nnb + f) * ndim];
      std::fprintf(out, " %lld %.9g %.9g %.9g", (long long)link[e * nnb + f], v[0], v[1], v[2]);
    }
    std::fputc('\n', out);
  }
  if (std::fclose(out) != 0)
    throw std::runtime_error("cannot write " + file.string());

  // What euler3d's reader makes of it: the neighbour from Fortran numbering (a negative one
  // first made -1), the normal negated.
  mesh.areas = area;
  mesh.neighbours.resize(size_t(n) * nnb);
  mesh.normals.resize(size_t(n) * nnb * ndim);
  for (int64_t e = 0; e < n; ++e)
    for (int f = 0; f < nnb; ++f) {
      int64_t v = link[e * nnb + f];
      mesh.neighbours[f * n + e] = int32_t((v < 0 ? -1 : v) - 1);
      for (int d = 0; d < ndim; ++d)
        mesh.normals[(d * nnb + f) * n + e] = -outward[(size_t(e) * nnb + f) * ndim + d];
    }
  return mesh;
}

// The far-field state and flux contributions as the peer's main computes them. The OpenMP
// version's GAMMA is the double 1.4 and the CUDA version's the float 1.4f, which changes
// ff_pressure / float(GAMMA - 1.0f) in the last bit (0.4f against 0.39999998f); the driver passes
// loom the values of the peer it compares with. This file is built with -ffp-contract=off
// (CMakeLists.txt), as the OpenMP peer is and as nvcc's host compiler is by default, so that
// velocity * momentum + pressure rounds twice here too.
struct FarField {
  float variable[nvar];
  float flux[4][3]; // momentum x, y, z, density energy
};
FarField far_field(bool cuda) {
  FarField ff{};
  const float angle_of_attack = float(3.1415926535897931 / 180.0f) * 0.0f;
  const float density = float(1.4), pressure = 1.0f;
  float speed_of_sound = cuda ? float(std::sqrt(1.4f * pressure / density))
                              : float(std::sqrt(1.4 * pressure / density));
  float speed = 1.2f * speed_of_sound;
  float velocity[3] = {speed * float(std::cos(angle_of_attack)),
                       speed * float(std::sin(angle_of_attack)), 0.0f};
  float gamma_1 = cuda ? float(1.4f - 1.0f) : float(1.4 - 1.0f);
  ff.variable[0] = density;
  for (int d = 0; d < 3; ++d)
    ff.variable[1 + d] = density * velocity[d];
  ff.variable[4] = density * (0.5f * (speed * speed)) + (pressure / gamma_1);
  // compute_flux_contribution
  const float *momentum = &ff.variable[1];
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      ff.flux[a][b] = a == b ? velocity[a] * momentum[b] + pressure : velocity[a] * momentum[b];
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < a; ++b)
      ff.flux[a][b] = ff.flux[b][a]; // Rodinia copies these instead of recomputing them
  float de_p = ff.variable[4] + pressure;
  for (int d = 0; d < 3; ++d)
    ff.flux[3][d] = velocity[d] * de_p;
  return ff;
}

int run(const rodinia::Options &options) {
  // The size of fvcorr.domn.097K (97,046 elements), Rodinia's run file's: 41 x 20 x 20 cells
  // less a wing of 12 x 1 x 14, 97,392 tetrahedra. Small: 4,512.
  const Box box =
      options.small ? Box{16, 8, 6, 5, 9, 3, 4, 1, 5} : Box{41, 20, 20, 14, 26, 9, 10, 3, 17};
  rodinia::WorkDir dir(options.keep);
  const Mesh mesh = make_mesh(box, 7, dir / "mesh.domn");
  const int64_t n = mesh.n;

  rodinia::PeerRun peer =
      rodinia::run_peer(options.peer, {"mesh.domn"}, dir.path(), options.threads, options.repeats);
  std::vector<float> expected = rodinia::read_floats(dir / "output.bin");

  loom::Module module = loom::compile(cfd_source, "cfd.loom");
  loom::Kernel initialize = module["initialize_variables"], euler3d = module["euler3d"];
  initialize.on(options.target);
  euler3d.on(options.target);
  const FarField ff = far_field(options.cuda_peer);
  const std::vector<float> ff_variable(ff.variable, ff.variable + nvar);
  const std::vector<float> ff_flux(&ff.flux[0][0], &ff.flux[0][0] + 12);

  const std::vector<float> zeros(size_t(nvar) * n, 0.0f);
  rodinia::KernelArray<float> variables(options, zeros, {nvar, n}),
      old_variables(options, zeros, {nvar, n}), fluxes(options, zeros, {nvar, n}),
      step_factors(options, std::vector<float>(n), {n}), areas(options, mesh.areas, {n}),
      normals(options, mesh.normals, {ndim, nnb, n}), ffv(options, ff_variable, {nvar}),
      fff(options, ff_flux, {4, 3});
  rodinia::KernelArray<int32_t> neighbours(options, mesh.neighbours, {nnb, n});
  // Rodinia times the iterations; the variables' initialization (initialize_variables) is
  // before its timer, and here in the untimed reset.
  double loom_ms = rodinia::best_ms(
      options.repeats, [&] { rodinia::call(initialize, variables, ffv); },
      [&] {
        rodinia::call(euler3d, variables, old_variables, fluxes, step_factors, areas, neighbours,
                      normals, ffv, fff, int64_t(iterations));
      });
  const std::vector<float> &got = variables.values();

  // On the CPU loom computes every element as Rodinia does, the same operations in the same
  // order, in f32, with no fused multiply-add (the peer is built with -ffp-contract=off), and
  // sqrt and division correctly rounded on both sides: the variables are equal bit for bit after
  // all 2000 iterations (tolerance 0). On the GPU nvcc and loom may each fuse products into sums
  // (both keep division and sqrt correctly rounded), which moves a flux by an ulp or so in each
  // of the 6000 stages; the artificial viscosity damps such differences more than the scheme
  // grows them, but they pile up. Measured on this machine: the OpenMP peer built with
  // -ffp-contract=fast (GCC then fuses where it can) against the same peer without, 2000
  // iterations, differ by at most 1.2e-6 at the full size and 5.4e-7 at the small one, relative
  // to max(|value|, 1). The floor of 1 is the flow's scale (the far field's density is 1.4, its
  // momentum 1.68, its energy 3.5): the cross-flow momenta are near 0 in much of the mesh, where
  // a difference of 1e-7 relative to the value itself says nothing. The tolerance is 1e-5, eight
  // times the fused-against-unfused difference, as two differently fused programs may each be
  // that far from the unfused one.
  double tolerance = options.gpu() ? 1e-5 : 0;
  double error = rodinia::max_relative_error(got, expected, 1.0);
  char size[96];
  std::snprintf(size, sizeof size, "%lld elements, %d iterations", (long long)n, iterations);
  std::printf("mesh: %lld tetrahedra, %d far-field faces, %d wing faces\n", (long long)n,
              mesh.far_field_faces, mesh.wing_faces);
  return rodinia::report(options, "cfd", size, loom_ms, peer.ms,
                         "largest difference of a variable to the peer's (relative, at least 1)",
                         error, tolerance);
}

} // namespace

int main(int argc, char **argv) {
  rodinia::Options options = rodinia::parse_options(argc, argv, "rodinia_omp_cfd");
  return rodinia::guarded("cfd", [&] { return run(options); });
}
