"""An extension file with a tool that draws itself (``render_call``/``render_result``;
the call line is bold, which ACP must send as plain text) and one whose renderer raises,
shared by the terminal and ACP renderer tests (issue 25, gap 7)."""

import textwrap

RENDERING_PLUGIN = textwrap.dedent(
    """
    import omp
    from pydantic import BaseModel
    from omp import Tool


    class City(BaseModel):
        city: str


    def broken(result, options):
        raise RuntimeError("renderer broke")


    @omp.hookimpl
    def omp_register_tools(api):
        return [
            Tool(
                name="weather",
                parameters=City,
                execute=lambda call_id, params, *rest: f"raw data for {params.city}",
                render_call=lambda args, options: f"\\x1b[1mWeather in {args['city']}\\x1b[0m",
                render_result=lambda result, options: ["sunny, 21 C", "wind: calm"],
            ),
            Tool(
                name="flaky",
                parameters=City,
                execute=lambda *a: "flaky default output",
                render_result=broken,
            ),
        ]
    """
)
