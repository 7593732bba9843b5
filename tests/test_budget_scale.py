"""Budget at scale: the scale benchmark's tree of 20 families and 10,000 results (`20x10k`) builds
with no HTML page over 300 KB and no JSON file over 500 KB, and the output grows linearly with
the number of results (issue 12: pages stay bounded as runs accumulate)."""

from __future__ import annotations

import pytest

from site_builder.bench_build import SIZES, write_tree
from site_builder.build import render_site

HTML_LIMIT, JSON_LIMIT = 300_000, 500_000


@pytest.fixture(scope="module")
def site_10k(tmp_path_factory):
    records = tmp_path_factory.mktemp("scale") / "records"
    assert write_tree(records, *SIZES["20x10k"]) == 10_000
    files, _ = render_site(records, jobs=2)
    return files


def test_no_page_over_300_kb_and_no_json_over_500_kb_at_10k_results(site_10k):
    families, impls, workloads, gpus, runs = SIZES["20x10k"]
    assert sum(p.startswith("runs/") and p.endswith(".html") for p in site_10k) == families * gpus * runs
    largest = {suffix: max(((len(b), p) for p, b in site_10k.items() if p.endswith(suffix)), default=(0, ""))
               for suffix in (".html", ".json")}
    too_big = sorted((len(b), p) for p, b in site_10k.items()
                     if (p.endswith(".html") and len(b) > HTML_LIMIT) or (p.endswith(".json") and len(b) > JSON_LIMIT))
    assert not too_big, (too_big[-5:], largest)


def test_output_grows_linearly_with_results(tmp_path):
    """Doubling the runs twice: the second doubling adds no more bytes per result than the first
    (a page or file that grew with the square of the runs would)."""
    sizes = {}
    for runs in (2, 4, 8):
        records = tmp_path / f"runs-{runs}"
        results = write_tree(records, families=3, impls=3, nworkloads=8, gpus=1, runs=runs)
        files, _ = render_site(records, jobs=2)
        sizes[results] = sum(len(b) for b in files.values())
    (n1, s1), (n2, s2), (n3, s3) = sorted(sizes.items())
    first, second = (s2 - s1) / (n2 - n1), (s3 - s2) / (n3 - n2)
    assert 0 < second <= first * 1.1, (first, second, sizes)


def test_family_page_weight_does_not_grow_with_the_gpus_on_record(tmp_path):
    """The family page shows one GPU's floors and charts and its headline workload's leaderboard,
    and links to a page per GPU: each GPU past the first adds a column to the records table and a
    link, under a tenth of what that GPU's own page weighs; each GPU's page ranks every workload."""
    sizes, gpu_page = {}, 0
    for gpus in (1, 5):
        records = tmp_path / f"gpus-{gpus}"
        write_tree(records, families=1, impls=5, nworkloads=20, gpus=gpus, runs=3)
        files, _ = render_site(records, jobs=2)
        sizes[gpus] = len(files["families/bench-family-00.html"])
        assert files["families/bench-family-00.html"].decode().count("<tr data-impl=") == 5  # the headline's
        gpu_pages = sorted(p for p in files if p.startswith("families/bench-family-00/") and p.endswith(".html"))
        assert gpu_pages == [f"families/bench-family-00/bench-gpu-{g}.html" for g in range(gpus)]
        for p in gpu_pages:
            html = files[p].decode()
            assert html.count("<tr data-impl=") == 5 * 20  # every implementation at every workload there
            gpu_page = max(gpu_page, len(files[p]))
    assert (sizes[5] - sizes[1]) / 4 < gpu_page / 10, (sizes, gpu_page)
