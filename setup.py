"""Only for the wheel: the site's templates and assets live in templates/ at the top of the
repository (where contributors edit them) and ship inside the package as site_builder/templates."""

from pathlib import Path
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


class BuildPy(build_py):
    def run(self):
        super().run()
        target = Path(self.build_lib) / "site_builder" / "templates"
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(ROOT / "templates", target)


setup(cmdclass={"build_py": BuildPy})
